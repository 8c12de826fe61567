package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

func vecCol(t arrow.DataType) plan.Expr { return &plan.ColumnRef{Name: "v", DataType: t, Null: true} }

// TestDistanceTyping follows DuckDB 2.0's typing of the distance functions (checked with
// typeof() and the error messages of the pinned DuckDB).
func TestDistanceTyping(t *testing.T) {
	f16 := arrow.FixedWidthTypes.Float16
	fsl := func(n int32, e arrow.DataType) arrow.DataType { return arrow.FixedSizeListOf(n, e) }
	cases := []struct {
		fn   string
		args []arrow.DataType
		want arrow.DataType
		err  string
	}{
		{fn: "array_distance", args: []arrow.DataType{fsl(4, f32), fsl(4, f32)}, want: f32},
		{fn: "array_cosine_similarity", args: []arrow.DataType{fsl(4, f32), fsl(4, f64)}, want: f64},
		{fn: "array_inner_product", args: []arrow.DataType{fsl(4, f16), fsl(4, f32)}, want: f32},
		{fn: "array_negative_inner_product", args: []arrow.DataType{fsl(2, f64), arrow.Null}, want: f64},
		{fn: "array_distance", args: []arrow.DataType{fsl(2, f32), fsl(3, f32)}, err: "array_distance: Array arguments must be of the same size"},
		{fn: "array_distance", args: []arrow.DataType{fsl(2, i8), fsl(2, i8)}, err: "array_distance: Arguments must be arrays of FLOAT or DOUBLE"},
		{fn: "array_distance", args: []arrow.DataType{fsl(2, f32), arrow.ListOf(f32)}, err: "no function matches"},
		{fn: "array_distance", args: []arrow.DataType{fsl(2, f32)}, err: "no function matches"},
		{fn: "list_distance", args: []arrow.DataType{arrow.ListOf(i32), arrow.ListOf(i32)}, want: f64},
		{fn: "list_distance", args: []arrow.DataType{arrow.ListOf(f32), arrow.ListOf(i32)}, want: f32},
		{fn: "list_cosine_similarity", args: []arrow.DataType{fsl(3, f32), arrow.ListOf(i64)}, want: f32},
		{fn: "list_inner_product", args: []arrow.DataType{arrow.ListOf(f32), arrow.ListOf(f64)}, want: f64},
		{fn: "list_distance", args: []arrow.DataType{arrow.ListOf(str), arrow.ListOf(f64)}, err: "no function matches"},
	}
	for _, c := range cases {
		t.Run(c.fn+c.err, func(t *testing.T) {
			args := make([]plan.Expr, len(c.args))
			for i, a := range c.args {
				args[i] = vecCol(a)
				if a.ID() == arrow.NULL {
					args[i] = &plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}
				}
			}
			call, err := NewCall(c.fn, args)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				kind, _ := dberr.KindOf(err)
				require.Equal(t, dberr.Binder, kind)
				return
			}
			require.NoError(t, err)
			require.True(t, arrow.TypeEqual(c.want, call.DataType), "got %s", call.DataType)
			for _, a := range call.Args {
				if lit, ok := a.(*plan.Literal); ok {
					require.Equal(t, arrow.FIXED_SIZE_LIST == lit.Type().ID() || arrow.LIST == lit.Type().ID(), true, "a NULL argument takes a list type, got %s", lit.Type())
				}
			}
		})
	}
}

func TestListValueAndCast(t *testing.T) {
	lit := func(s scalar.Scalar) plan.Expr { return &plan.Literal{Value: s} }
	l, err := ListValue([]plan.Expr{lit(scalar.NewInt32Scalar(1)), lit(scalar.NewFloat64Scalar(2.5)), lit(scalar.MakeNullScalar(arrow.Null))})
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(arrow.ListOf(f64), l.Type()), "got %s", l.Type())
	require.Equal(t, "[1 2.5 (null)]", l.(*plan.Literal).Value.(*scalar.List).Value.String())

	arr, err := Cast(l, arrow.FixedSizeListOf(3, f32))
	require.NoError(t, err)
	got, ok := arr.(*plan.Literal)
	require.True(t, ok, "a constant list cast folds")
	require.True(t, arrow.TypeEqual(arrow.FixedSizeListOf(3, f32), got.Type()))
	require.Equal(t, "[1 2.5 (null)]", got.Value.(*scalar.FixedSizeList).Value.String())

	_, err = Cast(l, arrow.FixedSizeListOf(2, f32))
	require.ErrorContains(t, err, "Cannot cast list with length 3 to array with length 2")

	empty, err := ListValue(nil)
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(arrow.ListOf(arrow.Null), empty.Type()))

	call, err := ListValue([]plan.Expr{vecCol(f32), lit(scalar.NewFloat32Scalar(1))})
	require.NoError(t, err)
	require.Equal(t, "list_value", call.(*plan.Call).Func)
	require.True(t, arrow.TypeEqual(arrow.ListOf(f32), call.Type()))
}
