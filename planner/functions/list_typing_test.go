package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// List literals take DuckDB's types: [NULL] is a list of NULL, nested lists meet at the
// common element type found recursively ([[1], [2.5]] is DECIMAL(11,1)[][]).
func TestListValueTyping(t *testing.T) {
	null := func() plan.Expr { return &plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)} }
	lit := func(s scalar.Scalar) plan.Expr { return &plan.Literal{Value: s} }
	list := func(items ...plan.Expr) plan.Expr {
		e, err := ListValue(items)
		require.NoError(t, err)
		return e
	}
	dec111 := &arrow.Decimal128Type{Precision: 11, Scale: 1}
	cases := []struct {
		name  string
		items []plan.Expr
		want  arrow.DataType
		str   string
		err   string
	}{
		{name: "[NULL]", items: []plan.Expr{null()}, want: arrow.ListOf(arrow.Null), str: "[(null)]"},
		{name: "[NULL, NULL]", items: []plan.Expr{null(), null()}, want: arrow.ListOf(arrow.Null), str: "[(null) (null)]"},
		{name: "[[1], [2.5]]", items: []plan.Expr{list(lit(scalar.NewInt32Scalar(1))), list(lit(scalar.NewDecimal128Scalar(decimal128.FromI64(25), &arrow.Decimal128Type{Precision: 2, Scale: 1})))}, want: arrow.ListOf(arrow.ListOf(dec111)), str: "[[1] [2.5]]"},
		{name: "[[NULL], [1]]", items: []plan.Expr{list(null()), list(lit(scalar.NewInt32Scalar(1)))}, want: arrow.ListOf(arrow.ListOf(i32)), str: "[[(null)] [1]]"},
		{name: "[[1], ['a']]", items: []plan.Expr{list(lit(scalar.NewInt32Scalar(1))), list(lit(scalar.NewStringScalar("a")))}, err: "no function matches"},
		{name: "[[1], 2]", items: []plan.Expr{list(lit(scalar.NewInt32Scalar(1))), lit(scalar.NewInt32Scalar(2))}, err: "list_value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ListValue(c.items)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.True(t, arrow.TypeEqual(c.want, got.Type()), "got %s", got.Type())
			l, ok := got.(*plan.Literal)
			require.True(t, ok, "%T", got)
			require.Equal(t, c.str, l.Value.(scalar.ListScalar).GetList().String())
		})
	}
}

// CommonType of two lists is a list of the elements' common type, recursively.
func TestCommonListType(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 2, Scale: 1}
	cases := []struct {
		a, b, want arrow.DataType
	}{
		{a: arrow.ListOf(i32), b: arrow.ListOf(i64), want: arrow.ListOf(i64)},
		{a: arrow.ListOf(i32), b: arrow.ListOf(dec), want: arrow.ListOf(&arrow.Decimal128Type{Precision: 11, Scale: 1})},
		{a: arrow.ListOf(arrow.ListOf(arrow.Null)), b: arrow.ListOf(arrow.ListOf(f64)), want: arrow.ListOf(arrow.ListOf(f64))},
		{a: arrow.ListOf(i32), b: arrow.ListOf(str), want: nil},
		{a: arrow.ListOf(arrow.ListOf(i32)), b: arrow.ListOf(i32), want: nil},
	}
	for _, c := range cases {
		got, ok := CommonType(c.a, c.b)
		require.Equal(t, c.want != nil, ok, "%s, %s", c.a, c.b)
		if ok {
			require.True(t, arrow.TypeEqual(c.want, got), "%s, %s: got %s", c.a, c.b, got)
		}
	}
}

// The list aggregates' types: min/max keep the element type, sum widens as sum does,
// avg is DOUBLE; non-numeric sums and non-list arguments do not match.
func TestListAggTyping(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 4, Scale: 1}
	null := &plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}
	cases := []struct {
		fn   string
		arg  plan.Expr
		want arrow.DataType
		err  string
	}{
		{fn: "list_min", arg: vecCol(arrow.ListOf(str)), want: str},
		{fn: "list_max", arg: vecCol(arrow.ListOf(arrow.FixedWidthTypes.Date32)), want: arrow.FixedWidthTypes.Date32},
		{fn: "list_min", arg: null, want: arrow.Null},
		{fn: "list_sum", arg: vecCol(arrow.ListOf(arrow.PrimitiveTypes.Int8)), want: i64},
		{fn: "list_sum", arg: vecCol(arrow.ListOf(arrow.PrimitiveTypes.Float32)), want: f64},
		{fn: "list_sum", arg: vecCol(arrow.ListOf(dec)), want: &arrow.Decimal128Type{Precision: 38, Scale: 1}},
		{fn: "list_sum", arg: null, want: i64},
		{fn: "list_avg", arg: vecCol(arrow.ListOf(dec)), want: f64},
		{fn: "list_sum", arg: vecCol(arrow.ListOf(str)), err: "no function matches"},
		{fn: "list_avg", arg: vecCol(arrow.ListOf(tBol)), err: "no function matches"},
		{fn: "list_max", arg: vecCol(i32), err: "no function matches"},
	}
	for _, c := range cases {
		t.Run(c.fn+c.arg.Type().String(), func(t *testing.T) {
			call, err := NewCall(c.fn, []plan.Expr{c.arg})
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.fn, call.Func)
			require.True(t, arrow.TypeEqual(c.want, call.DataType), "got %s", call.DataType)
		})
	}
}
