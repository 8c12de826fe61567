package expr_test

import (
	"context"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

var (
	i64 = arrow.PrimitiveTypes.Int64
	i32 = arrow.PrimitiveTypes.Int32
	f64 = arrow.PrimitiveTypes.Float64
	str = arrow.BinaryTypes.String
	bln = arrow.FixedWidthTypes.Boolean
	d32 = arrow.FixedWidthTypes.Date32
)

// Input columns: 0 a int64, 1 b int64, 2 x float64, 3 s string, 4 p bool, 5 q bool, 6 d date32.
var inSchema = arrow.NewSchema([]arrow.Field{
	{Name: "a", Type: i64, Nullable: true}, {Name: "b", Type: i64, Nullable: true},
	{Name: "x", Type: f64, Nullable: true}, {Name: "s", Type: str, Nullable: true},
	{Name: "p", Type: bln, Nullable: true}, {Name: "q", Type: bln, Nullable: true},
	{Name: "d", Type: d32, Nullable: true},
}, nil)

var inRows = exectest.Rows{
	{7, 2, 1.5, "apple", true, true, 100},
	{-7, 2, -0.5, "banana", true, false, 200},
	{nil, 3, nil, nil, true, nil, nil},
	{0, nil, 2.0, "", false, false, 100},
	{9, -4, 0.0, "ábc", false, nil, 50},
	{nil, nil, nil, "a_c", nil, nil, nil},
}

func col(i int) *plan.ColumnRef {
	return &plan.ColumnRef{Index: i, DataType: inSchema.Field(i).Type, Null: true}
}

func lit(v any) *plan.Literal { return &plan.Literal{Value: scalar.MakeScalar(v)} }

func null(dt arrow.DataType) *plan.Literal { return &plan.Literal{Value: scalar.MakeNullScalar(dt)} }

func dec(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }

// decLit is a DECIMAL(18,2) literal of v hundredths.
func decLit(v int64) *plan.Literal {
	return &plan.Literal{Value: scalar.NewDecimal128Scalar(decimal128.FromI64(v), dec(18, 2))}
}

func fn(name string, dt arrow.DataType, args ...plan.Expr) *plan.Call {
	return &plan.Call{Func: name, Args: args, DataType: dt, Null: true}
}

// eval evaluates e over inRows in both layouts and returns the values (checking both agree).
func eval(t *testing.T, e plan.Expr) ([]any, error) {
	t.Helper()
	var first []any
	for _, layout := range []exectest.Layout{exectest.Plain, exectest.Hostile} {
		got, err := evalLayout(t, e, layout)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = got
			continue
		}
		exectest.RequireRows(t, exectest.Rows{first}, exectest.Rows{got}, true)
	}
	return first, nil
}

func evalLayout(t *testing.T, e plan.Expr, layout exectest.Layout) ([]any, error) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bs, err := exectest.MakeBatches(mem, inSchema, inRows, 0, layout)
	require.NoError(t, err)
	defer bs[0].Release()
	ev, err := expr.Compile(e, mem)
	if err != nil {
		return nil, err
	}
	out, err := ev.Eval(context.Background(), bs[0])
	if err != nil {
		return nil, err
	}
	defer out.Release()
	require.Equal(t, len(inRows), out.Len())
	require.True(t, arrow.TypeEqual(e.Type(), out.DataType()), "type %s, want %s", out.DataType(), e.Type())
	return columnValues(out), nil
}

func TestFunctions(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name string
		e    plan.Expr
		want []any
	}{
		{"equal", fn("equal", bln, col(0), lit(int64(7))), []any{true, false, nil, false, false, nil}},
		{"not_equal", fn("not_equal", bln, col(0), col(1)), []any{true, true, nil, nil, true, nil}},
		{"lt", fn("lt", bln, col(2), lit(1.0)), []any{false, true, nil, false, true, nil}},
		{"lte-string", fn("lte", bln, col(3), lit("b")), []any{true, false, nil, true, false, true}},
		{"gt-date", fn("gt", bln, col(6), lit(arrow.Date32(99))), []any{true, true, nil, true, false, nil}},
		{"gt-bool", fn("gt", bln, col(4), col(5)), []any{false, true, nil, false, nil, nil}},
		{"lte-bool", fn("lte", bln, col(4), col(5)), []any{true, false, nil, true, nil, nil}},
		{"gte", fn("gte", bln, col(0), col(1)), []any{true, false, nil, nil, true, nil}},
		{"and-kleene", fn("and", bln, col(4), col(5)), []any{true, false, nil, false, false, nil}},
		{"or-kleene", fn("or", bln, col(4), col(5)), []any{true, true, true, false, nil, nil}},
		{"and-3", fn("and", bln, col(4), col(5), lit(true)), []any{true, false, nil, false, false, nil}},
		{"not", fn("not", bln, col(5)), []any{false, true, nil, true, nil, nil}},
		{"is_null", fn("is_null", bln, col(3)), []any{false, false, true, false, false, false}},
		{"is_not_null", fn("is_not_null", bln, col(0)), []any{true, true, false, true, true, false}},
		{"add", fn("add", i64, col(0), col(1)), []any{9, -5, nil, nil, 5, nil}},
		{"subtract", fn("subtract", i64, col(0), col(1)), []any{5, -9, nil, nil, 13, nil}},
		{"multiply", fn("multiply", i64, col(0), col(1)), []any{14, -14, nil, nil, -36, nil}},
		{"divide-int-truncates", fn("divide", i64, col(0), col(1)), []any{3, -3, nil, nil, -2, nil}},
		{"divide-float-by-zero", fn("divide", f64, col(2), lit(0.0)), []any{inf, math.Inf(-1), nil, inf, math.NaN(), nil}},
		{"modulus-sign-of-dividend", fn("modulus", i64, col(0), col(1)), []any{1, -1, nil, nil, 1, nil}},
		{"modulus-float", fn("modulus", f64, col(2), lit(1.0)), []any{0.5, -0.5, nil, 0.0, 0.0, nil}},
		{"negate", fn("negate", i64, col(0)), []any{-7, 7, nil, 0, -9, nil}},
		{"coalesce", fn("coalesce", i64, col(0), col(1), lit(int64(-1))), []any{7, -7, 3, 0, 9, -1}},
		{"coalesce-string", fn("coalesce", str, col(3), lit("?")), []any{"apple", "banana", "?", "", "ábc", "a_c"}},
		{"like-prefix", fn("like", bln, col(3), lit("a%")), []any{true, false, nil, false, false, true}},
		{"like-underscore-utf8", fn("like", bln, col(3), lit("_bc")), []any{false, false, nil, false, true, false}},
		{"like-general", fn("like", bln, col(3), lit("%an_n%")), []any{false, true, nil, false, false, false}},
		{"like-exact", fn("like", bln, col(3), lit("")), []any{false, false, nil, true, false, false}},
		{"like-null-pattern", fn("like", bln, col(3), null(str)), []any{nil, nil, nil, nil, nil, nil}},
		{"case", fn("case", str, fn("gt", bln, col(0), lit(int64(0))), lit("pos"), fn("lt", bln, col(0), lit(int64(0))), lit("neg"), lit("zero-or-null")),
			[]any{"pos", "neg", "zero-or-null", "zero-or-null", "pos", "zero-or-null"}},
		// A bare boolean column as a later condition: it is read from the filtered rows.
		{"case-bool-column-after-split", fn("case", str, fn("is_null", bln, col(5)), null(str), col(5), lit("T"), lit("F")),
			[]any{"T", "F", nil, "F", nil, nil}},
		{"case-no-else", fn("case", i64, col(4), col(0)), []any{7, -7, nil, nil, nil, nil}},
		{"case-guards-division", fn("case", i64, fn("equal", bln, col(1), lit(int64(0))), lit(int64(0)), fn("divide", i64, col(0), col(1))),
			[]any{3, -3, nil, nil, -2, nil}},
		// CASE WHEN a % 7 = 0 THEN -1 ELSE 100 // (a % 7) END never divides by zero.
		{"case-guards-division-by-zero", fn("case", i64, fn("equal", bln, fn("modulus", i64, col(0), lit(int64(7))), lit(int64(0))), lit(int64(-1)),
			fn("divide", i64, lit(int64(100)), fn("modulus", i64, col(0), lit(int64(7))))),
			[]any{-1, -1, nil, -1, 50, nil}},
		{"cast-int-to-string", &plan.Cast{Input: col(0), DataType: str}, []any{"7", "-7", nil, "0", "9", nil}},
		// DuckDB rounds half to even: 4.5 → 4, -1.5 → -2.
		{"cast-float-to-int-rounds", &plan.Cast{Input: fn("multiply", f64, col(2), lit(3.0)), DataType: i32}, []any{4, -2, nil, 6, 0, nil}},
		{"cast-float-to-string-repr", &plan.Cast{Input: fn("multiply", f64, col(2), lit(1e16)), DataType: str},
			[]any{"1.5e+16", "-5000000000000000.0", nil, "2e+16", "0.0", nil}},
		{"try-cast-string-to-int", &plan.Cast{Input: fn("coalesce", str, col(3), lit("12")), DataType: i64, Try: true}, []any{nil, nil, 12, nil, nil, nil}},
		{"cast-float-to-string", &plan.Cast{Input: col(2), DataType: str}, []any{"1.5", "-0.5", nil, "2.0", "0.0", nil}},
		{"cast-string-to-date", &plan.Cast{Input: lit("2024-01-02"), DataType: d32}, []any{
			arrow.Date32(19724), arrow.Date32(19724), arrow.Date32(19724), arrow.Date32(19724), arrow.Date32(19724), arrow.Date32(19724)}},
		{"try-cast-string-to-date", &plan.Cast{Input: col(3), DataType: d32, Try: true}, []any{nil, nil, nil, nil, nil, nil}},
		{"decimal-add-conforms", &plan.Cast{Input: fn("add", dec(18, 2), decLit(125), decLit(-300)), DataType: f64},
			[]any{-1.75, -1.75, -1.75, -1.75, -1.75, -1.75}},
		{"like-column-pattern", fn("like", bln, col(3), col(3)), []any{true, true, nil, true, true, true}},
		{"like-cast-null-pattern", fn("like", bln, col(3), &plan.Cast{Input: null(arrow.Null), DataType: str}), []any{nil, nil, nil, nil, nil, nil}},
		{"strict-null-typed", fn("equal", bln, null(arrow.Null), null(arrow.Null)), []any{nil, nil, nil, nil, nil, nil}},
		{"null-literal", null(i64), []any{nil, nil, nil, nil, nil, nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := eval(t, c.e)
			require.NoError(t, err)
			exectest.RequireRows(t, exectest.Rows{c.want}, exectest.Rows{got}, true)
		})
	}
}

func TestFunctionErrors(t *testing.T) {
	big := lit(int64(math.MaxInt64))
	cases := []struct {
		name string
		e    plan.Expr
		kind dberr.Kind
		msg  string
	}{
		{"add-overflow", fn("add", i64, big, col(1)), dberr.OutOfRange, "Overflow in addition of INT64"},
		{"multiply-overflow", fn("multiply", i64, big, col(1)), dberr.OutOfRange, "Overflow in multiplication of INT64"},
		{"subtract-overflow", fn("subtract", i64, lit(int64(math.MinInt64)), lit(int64(1))), dberr.OutOfRange, "Overflow in subtraction of INT64"},
		{"divide-by-zero", fn("divide", i64, col(0), lit(int64(0))), dberr.InvalidInput, "Division by zero"},
		{"modulus-by-zero", fn("modulus", i64, col(0), lit(int64(0))), dberr.InvalidInput, "Division by zero"},
		{"divide-overflow", fn("divide", i64, lit(int64(math.MinInt64)), lit(int64(-1))), dberr.OutOfRange, "Overflow in division"},
		{"negate-overflow", fn("negate", i64, lit(int64(math.MinInt64))), dberr.OutOfRange, "Overflow in negation"},
		{"cast-string-to-int", &plan.Cast{Input: col(3), DataType: i64}, dberr.Conversion, "Could not convert"},
		{"cast-float-out-of-range", &plan.Cast{Input: lit(1e300), DataType: i64}, dberr.Conversion, "out of range"},
		{"unknown-function", fn("frobnicate", i64, col(0)), dberr.NotImplemented, "not supported yet: function frobnicate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := eval(t, c.e)
			require.Error(t, err)
			k, ok := dberr.KindOf(err)
			require.True(t, ok, "unclassified error %v", err)
			require.Equal(t, c.kind, k, "error %v", err)
			require.Contains(t, err.Error(), c.msg)
		})
	}
}
