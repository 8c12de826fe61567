package functions

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// ArrayDistanceFuncs are DuckDB's distance functions over fixed-size arrays
// (FLOAT[N] or DOUBLE[N]); ListDistanceFuncs are the same over variable-length lists,
// where equal lengths are checked per row at run time.
var (
	ArrayDistanceFuncs = []string{
		"array_distance", "array_cosine_distance", "array_cosine_similarity",
		"array_inner_product", "array_negative_inner_product",
	}
	ListDistanceFuncs = []string{
		"list_distance", "list_cosine_distance", "list_cosine_similarity",
		"list_inner_product", "list_negative_inner_product",
	}
)

// Alternative names DuckDB accepts for the distance functions.
var vectorAliases = map[string]string{
	"array_dot_product": "array_inner_product", "list_dot_product": "list_inner_product",
	"array_negative_dot_product": "array_negative_inner_product",
	"list_negative_dot_product":  "list_negative_inner_product",
}

func init() {
	for _, n := range ArrayDistanceFuncs {
		genericRules[n], Scalars[n] = arrayDistance, Generic
	}
	for _, n := range ListDistanceFuncs {
		genericRules[n], Scalars[n] = listDistance, Generic
	}
	for k, v := range vectorAliases {
		Aliases[k] = v
	}
}

// isFloatElem reports whether t is an element type DuckDB types as FLOAT or DOUBLE.
// HALF_FLOAT counts as FLOAT: DuckDB reads Arrow half floats as FLOAT.
func isFloatElem(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

// listElem returns the element type of a list-like type.
func listElem(t arrow.DataType) (arrow.DataType, bool) {
	switch t.ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST:
		return t.(arrow.ListLikeType).Elem(), true
	}
	return nil, false
}

// arrayDistance types array_distance and its siblings as DuckDB does: both arguments
// FLOAT[N] or DOUBLE[N] of the same N (a Binder error otherwise); the result is FLOAT when
// both are FLOAT arrays, else DOUBLE. Lists are not arrays (DuckDB casts neither way
// implicitly here): [1, 2] must be written [1, 2]::FLOAT[2].
func arrayDistance(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch(name, args)
	}
	size := -1
	double := false
	for _, a := range args {
		t := a.Type()
		if t.ID() == arrow.NULL || isNullIntLiteral(a) {
			continue
		}
		elem, ok := listElem(t)
		if !ok || t.ID() != arrow.FIXED_SIZE_LIST {
			return nil, noMatch(name, args)
		}
		if !isFloatElem(elem) {
			return nil, dberr.New(dberr.Binder, "%s: Arguments must be arrays of FLOAT or DOUBLE", name)
		}
		double = double || elem.ID() == arrow.FLOAT64
		if fsl, isFSL := t.(*arrow.FixedSizeListType); isFSL {
			if size >= 0 && int(fsl.Len()) != size {
				return nil, dberr.New(dberr.Binder, "%s: Array arguments must be of the same size", name)
			}
			size = int(fsl.Len())
		}
	}
	return distanceCall(name, args, double)
}

// listDistance types list_distance and its siblings: lists (or arrays) of numbers; the
// result is FLOAT when some argument holds FLOAT (or HALF) elements and none DOUBLE,
// else DOUBLE. Elements of other types are cast to the result type. A constant list of
// DOUBLE counts as DECIMAL items, as DuckDB types [1, 0.5]: it follows the other
// argument (so [1, 2]::DOUBLE[] next to a FLOAT list computes in FLOAT, unlike DuckDB).
func listDistance(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch(name, args)
	}
	hasFloat, hasDouble := false, false
	for _, a := range args {
		if a.Type().ID() == arrow.NULL || isNullIntLiteral(a) {
			continue
		}
		elem, ok := listElem(a.Type())
		if !ok || (!IsNumeric(elem) && elem.ID() != arrow.FLOAT16 && elem.ID() != arrow.NULL) {
			return nil, noMatch(name, args)
		}
		hasFloat = hasFloat || elem.ID() == arrow.FLOAT32 || elem.ID() == arrow.FLOAT16
		// A list literal's fractional items are DECIMAL in DuckDB (DOUBLE here): they
		// do not make the call DOUBLE.
		_, isLit := a.(*plan.Literal)
		hasDouble = hasDouble || elem.ID() == arrow.FLOAT64 && !isLit
	}
	double := hasDouble || !hasFloat
	target := arrow.DataType(arrow.PrimitiveTypes.Float32)
	if double {
		target = tF64
	}
	out := make([]plan.Expr, len(args))
	for i, a := range args {
		out[i] = a
		elem, ok := listElem(a.Type())
		if !ok || isFloatElem(elem) || elem.ID() == arrow.INT8 {
			continue // the kernel reads these element types directly
		}
		c, err := Cast(a, arrow.ListOf(target))
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return distanceCall(name, out, double)
}

func distanceCall(name string, args []plan.Expr, double bool) (*plan.Call, error) {
	ret := arrow.DataType(arrow.PrimitiveTypes.Float32)
	if double {
		ret = tF64
	}
	// A NULL argument takes the other's type, so the call keeps its typing when read
	// back from Substrait (where an untyped NULL is written as a NULL integer).
	for i, a := range args {
		if a.Type().ID() == arrow.NULL || isNullIntLiteral(a) {
			other := args[1-i].Type()
			if _, ok := listElem(other); !ok {
				other = arrow.FixedSizeListOf(1, ret)
			}
			c, err := Cast(&plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}, other)
			if err != nil {
				return nil, err
			}
			args[i] = c
		}
	}
	return &plan.Call{Func: name, Args: args, DataType: ret, Null: anyNullable(args)}, nil
}

// isNullIntLiteral reports whether e is a NULL literal of an integer type: an untyped NULL
// after a Substrait round trip.
func isNullIntLiteral(e plan.Expr) bool {
	lit, ok := e.(*plan.Literal)
	return ok && !lit.Value.IsValid() && IsInteger(lit.Type())
}
