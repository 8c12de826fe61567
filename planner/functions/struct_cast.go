package functions

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/planner/plan"
)

// CastStruct casts a struct to another struct type by field name, as DuckDB does (an
// unnamed struct of as many fields by position): constants fold; otherwise each target
// field is the cast (TRY_CAST when try) of the matching source field, NULL when the
// source lacks it, and a NULL struct stays NULL. Cast uses it for every struct-to-struct
// cast, so CASE, COALESCE, comparisons and set operations reach structs of other names.
func CastStruct(x plan.Expr, to *arrow.StructType, try bool) (plan.Expr, error) {
	from := x.Type().(*arrow.StructType)
	if arrow.TypeEqual(from, to) {
		return x, nil
	}
	if err := checkStructCast(from, to); err != nil {
		return nil, err
	}
	if lit, ok := x.(*plan.Literal); ok && !try {
		folded, ok, err := foldCast(lit, to)
		if err != nil || ok {
			return folded, err
		}
	}
	vals := make([]plan.Expr, to.NumFields())
	names := make([]string, to.NumFields())
	for i, f := range to.Fields() {
		names[i] = f.Name
		v, err := castStructField(x, from, to, i, try)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	packed, err := StructPack(names, vals)
	if err != nil || !x.Nullable() {
		return packed, err
	}
	// Built directly: NewCall would make an initialization cycle through Cast.
	isNull := &plan.Call{Func: "is_null", Args: []plan.Expr{x}, DataType: arrow.FixedWidthTypes.Boolean}
	null := &plan.Literal{Value: scalar.MakeNullScalar(to)}
	return &plan.Call{Func: "case", Args: []plan.Expr{isNull, null, packed}, DataType: to, Null: true}, nil
}

// castStructField is target field i of CastStruct: the cast of the matching source field
// of x, or a NULL of the field's type.
func castStructField(x plan.Expr, from, to *arrow.StructType, i int, try bool) (plan.Expr, error) {
	f := to.Field(i)
	key := structKey(from, to, i)
	if key == nil {
		return &plan.Literal{Value: scalar.MakeNullScalar(f.Type)}, nil
	}
	src, err := StructExtract(x, key)
	if err != nil {
		return nil, err
	}
	if !try {
		return Cast(src, f.Type)
	}
	if arrow.TypeEqual(src.Type(), f.Type) {
		return src, nil
	}
	return &plan.Cast{Input: src, DataType: f.Type, Try: true}, nil
}

// structKey is the struct_extract key of the source field for target field i, nil when
// the source has none.
func structKey(from, to *arrow.StructType, i int) plan.Expr {
	if IsRowStruct(from) && from.NumFields() == to.NumFields() {
		return &plan.Literal{Value: scalar.NewStringScalar(from.Field(i).Name)}
	}
	name := to.Field(i).Name
	for _, f := range from.Fields() {
		if strings.EqualFold(f.Name, name) {
			return &plan.Literal{Value: scalar.NewStringScalar(f.Name)}
		}
	}
	return nil
}
