package functions

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

var (
	i8   = arrow.PrimitiveTypes.Int8
	i16  = arrow.PrimitiveTypes.Int16
	i32  = arrow.PrimitiveTypes.Int32
	i64  = arrow.PrimitiveTypes.Int64
	u8   = arrow.PrimitiveTypes.Uint8
	u32  = arrow.PrimitiveTypes.Uint32
	u64  = arrow.PrimitiveTypes.Uint64
	f32  = arrow.PrimitiveTypes.Float32
	f64  = arrow.PrimitiveTypes.Float64
	str  = arrow.BinaryTypes.String
	date = arrow.FixedWidthTypes.Date32
	tsUs = &arrow.TimestampType{Unit: arrow.Microsecond}
	tsMs = &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
)

func TestCommonType(t *testing.T) {
	tests := []struct {
		a, b arrow.DataType
		want arrow.DataType // nil: no common type
	}{
		{i32, i32, i32},
		{i32, i64, i64},
		{i8, i16, i16},
		{u8, u32, u32},
		{u8, i8, i16},
		{u32, i32, i64},
		{u64, i64, i64},
		{i32, f64, f64},
		{i16, f32, f32},
		{i64, f32, f64},
		{f32, f64, f64},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, i32, &arrow.Decimal128Type{Precision: 12, Scale: 2}},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, &arrow.Decimal128Type{Precision: 5, Scale: 4}, &arrow.Decimal128Type{Precision: 12, Scale: 4}},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, f64, f64},
		{str, arrow.BinaryTypes.LargeString, str},
		{date, tsUs, tsUs},
		{tsUs, tsMs, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{arrow.Null, str, str},
		{i32, str, nil},
		{arrow.FixedWidthTypes.Boolean, i32, nil},
		{date, i32, nil},
	}
	for _, tc := range tests {
		t.Run(tc.a.String()+"_"+tc.b.String(), func(t *testing.T) {
			got, ok := CommonType(tc.a, tc.b)
			if tc.want == nil {
				require.False(t, ok, "got %v", got)
				return
			}
			require.True(t, ok)
			require.True(t, arrow.TypeEqual(tc.want, got), "want %s, got %s", tc.want, got)
			back, ok := CommonType(tc.b, tc.a)
			require.True(t, ok)
			require.True(t, arrow.TypeEqual(got, back), "CommonType must be symmetric")
		})
	}
}

func col(name string, t arrow.DataType, null bool) *plan.ColumnRef {
	return &plan.ColumnRef{Name: name, DataType: t, Null: null}
}

func lit(s scalar.Scalar) *plan.Literal { return &plan.Literal{Value: s} }

// callCase is one NewCall: want is the String() of the call, its type and " null" when
// nullable; err a wanted error kind instead.
type callCase struct {
	name string
	args []plan.Expr
	want string
	err  dberr.Kind
}

func runCallCases(t *testing.T, tests []callCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name+"/"+tc.want, func(t *testing.T) {
			c, err := NewCall(tc.name, tc.args)
			if tc.err != 0 {
				var e *dberr.Error
				require.ErrorAs(t, err, &e, "want an error, got %v", err)
				require.Equal(t, tc.err, e.Kind, err.Error())
				return
			}
			require.NoError(t, err)
			got := c.String() + " " + c.Type().String()
			if c.Nullable() {
				got += " null"
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestNewCall(t *testing.T) {
	runCallCases(t, []callCase{
		{"gt", []plan.Expr{col("a", i16, true), lit(scalar.NewInt32Scalar(5))}, "gt(a#0, 5) bool null", 0},
		{"gt", []plan.Expr{col("a", i16, false), lit(scalar.NewInt32Scalar(100000))}, "gt(CAST(a#0 AS int32), 100000) bool", 0},
		{"equal", []plan.Expr{col("d", date, true), lit(scalar.NewStringScalar("2024-02-29"))}, "equal(d#0, 2024-02-29) bool null", 0},
		{"equal", []plan.Expr{col("d", date, true), lit(scalar.NewStringScalar("2023-02-29"))}, "", dberr.Conversion},
		{"lt", []plan.Expr{col("a", i32, false), col("b", f64, false)}, "lt(CAST(a#0 AS float64), b#0) bool", 0},
		{"add", []plan.Expr{col("a", i32, false), col("b", i64, true)}, "add(CAST(a#0 AS int64), b#0) int64 null", 0},
		{"divide", []plan.Expr{col("a", i32, false), lit(scalar.NewInt32Scalar(2))}, "divide(CAST(a#0 AS float64), 2) float64 null", 0},
		{"modulus", []plan.Expr{col("a", i64, false), lit(scalar.NewInt32Scalar(2))}, "modulus(a#0, 2) int64 null", 0},
		{"negate", []plan.Expr{col("a", f32, false)}, "negate(a#0) float32", 0},
		{"add", []plan.Expr{col("a", date, false), lit(scalar.NewInt32Scalar(1))}, "add(a#0, 1) date32", 0},
		{"add", []plan.Expr{lit(scalar.NewInt64Scalar(2)), col("a", date, true)}, "add(a#0, 2) date32 null", 0},
		{"subtract", []plan.Expr{col("a", date, false), col("b", date, true)}, "subtract(a#0, b#0) int64 null", 0},
		{"subtract", []plan.Expr{col("a", date, false), lit(scalar.NewMonthDayNanoIntervalScalar(arrow.MonthDayNanoInterval{Days: 1}))}, "subtract(CAST(a#0 AS timestamp[us]), {\"months\":0,\"days\":1,\"nanoseconds\":0}) timestamp[us]", 0},
		{"multiply", []plan.Expr{col("a", date, false), lit(scalar.NewInt32Scalar(2))}, "", dberr.Binder},
		// DuckDB's decimal arithmetic: + and - one digit wider at the larger scale, * at the sum
		// of precisions and scales (integers as decimal(w, 0)), capped at 38 digits.
		{"add", []plan.Expr{col("p", &arrow.Decimal128Type{Precision: 15, Scale: 2}, false), col("q", &arrow.Decimal128Type{Precision: 15, Scale: 2}, false)}, "add(p#0, q#0) decimal(16, 2)", 0},
		{"subtract", []plan.Expr{lit(scalar.NewInt32Scalar(1)), col("q", &arrow.Decimal128Type{Precision: 15, Scale: 2}, true)}, "subtract(1, q#0) decimal(16, 2) null", 0},
		{"multiply", []plan.Expr{col("p", &arrow.Decimal128Type{Precision: 15, Scale: 2}, false), col("q", &arrow.Decimal128Type{Precision: 16, Scale: 2}, false)}, "multiply(p#0, q#0) decimal(31, 4)", 0},
		{"multiply", []plan.Expr{col("p", &arrow.Decimal128Type{Precision: 15, Scale: 2}, false), col("a", i32, false)}, "multiply(p#0, CAST(a#0 AS decimal(10, 0))) decimal(25, 2)", 0},
		{"multiply", []plan.Expr{col("p", &arrow.Decimal128Type{Precision: 31, Scale: 4}, false), col("q", &arrow.Decimal128Type{Precision: 16, Scale: 2}, false)}, "multiply(p#0, q#0) decimal(38, 6)", 0},
		{"multiply", []plan.Expr{col("p", &arrow.Decimal128Type{Precision: 38, Scale: 20}, false), col("q", &arrow.Decimal128Type{Precision: 38, Scale: 20}, false)}, "", dberr.Binder},
		{"lower", []plan.Expr{col("s", str, true)}, "lower(s#0) utf8 null", 0},
		{"lower", []plan.Expr{col("a", i32, false)}, "", dberr.Binder},
		{"substring", []plan.Expr{col("s", str, false), lit(scalar.NewInt32Scalar(2))}, "substring(s#0, 2) utf8", 0},
		{"substring", []plan.Expr{col("s", str, false)}, "", dberr.Binder},
		{"concat", []plan.Expr{col("s", str, true), col("a", i32, false)}, "concat(s#0, CAST(a#0 AS utf8)) utf8", 0},
		{"round", []plan.Expr{col("a", i32, true)}, "round(a#0) int32 null", 0},
		{"ceil", []plan.Expr{col("a", i32, true)}, "ceil(CAST(a#0 AS float64)) float64 null", 0},
		{"round", []plan.Expr{col("d", &arrow.Decimal128Type{Precision: 10, Scale: 2}, false), lit(scalar.NewInt32Scalar(1))}, "round(d#0, 1) decimal(10, 1)", 0},
		{"sqrt", []plan.Expr{col("a", i32, false)}, "sqrt(CAST(a#0 AS float64)) float64", 0},
		{"greatest", []plan.Expr{col("a", i32, false), col("b", i64, true)}, "greatest(CAST(a#0 AS int64), b#0) int64", 0},
		{"nullif", []plan.Expr{col("a", i32, false), lit(scalar.NewInt32Scalar(0))}, "nullif(a#0, 0) int32 null", 0},
		{"date_part", []plan.Expr{lit(scalar.NewStringScalar("YEAR")), col("d", date, true)}, "date_part('year', d#0) int64 null", 0},
		{"date_part", []plan.Expr{lit(scalar.NewStringScalar("epoch")), col("t", tsUs, false)}, "date_part('epoch', t#0) float64", 0},
		{"date_part", []plan.Expr{lit(scalar.NewStringScalar("fortnight")), col("d", date, true)}, "", dberr.Binder},
		{"date_part", []plan.Expr{col("s", str, false), col("d", date, true)}, "", dberr.NotImplemented},
		{"date_trunc", []plan.Expr{lit(scalar.NewStringScalar("month")), col("d", date, false)}, "date_trunc('month', d#0) timestamp[us]", 0},
		{"is_distinct_from", []plan.Expr{col("a", i32, true), col("b", i64, true)}, "is_distinct_from(CAST(a#0 AS int64), b#0) bool", 0},
		{"add", []plan.Expr{col("a", str, false), lit(scalar.NewInt32Scalar(1))}, "", dberr.Binder},
		{"and", []plan.Expr{col("a", arrow.FixedWidthTypes.Boolean, true), lit(scalar.MakeNullScalar(arrow.Null))}, "and(a#0, NULL) bool null", 0},
		{"and", []plan.Expr{col("a", i32, false)}, "", dberr.Binder},
		{"is_null", []plan.Expr{col("a", i32, true)}, "is_null(a#0) bool", 0},
		{"like", []plan.Expr{col("s", str, true), lit(scalar.NewStringScalar("a%"))}, "like(s#0, 'a%') bool null", 0},
		{"like", []plan.Expr{col("s", i32, true), lit(scalar.NewStringScalar("a%"))}, "", dberr.Binder},
		{"coalesce", []plan.Expr{col("a", i32, true), col("b", i64, false)}, "coalesce(CAST(a#0 AS int64), b#0) int64", 0},
		{"case", []plan.Expr{col("c", arrow.FixedWidthTypes.Boolean, false), lit(scalar.NewInt32Scalar(1)), lit(scalar.NewFloat64Scalar(2.5))}, "case(c#0, 1, 2.5) float64", 0},
		{"case", []plan.Expr{col("c", i32, false), lit(scalar.NewInt32Scalar(1)), lit(scalar.NewInt32Scalar(2))}, "", dberr.Binder},
		{"nope", nil, "", dberr.Binder},
	})
}

func TestCastFolding(t *testing.T) {
	tests := []struct {
		in   scalar.Scalar
		to   arrow.DataType
		want string // String() of the result
	}{
		{scalar.NewInt32Scalar(7), i64, "7"},
		{scalar.NewInt32Scalar(300), i8, "CAST(300 AS int8)"},
		{scalar.NewInt32Scalar(-1), u32, "CAST(-1 AS uint32)"},
		{scalar.NewInt32Scalar(5), f64, "5"},
		{scalar.NewInt32Scalar(12), &arrow.Decimal128Type{Precision: 4, Scale: 2}, "12"},
		{scalar.NewInt32Scalar(123), &arrow.Decimal128Type{Precision: 4, Scale: 2}, "CAST(123 AS decimal(4, 2))"},
		{scalar.NewStringScalar(" 42 "), i64, "42"},
		{scalar.NewStringScalar("yes"), arrow.FixedWidthTypes.Boolean, "true"},
		{scalar.NewStringScalar("2026-05-01 12:00:00+02:00"), tsUs, "2026-05-01 10:00:00"},
		{scalar.NewDate32Scalar(arrow.Date32FromTime(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))), tsUs, "2026-05-01 00:00:00"},
		{scalar.MakeNullScalar(arrow.Null), str, "NULL"},
		{scalar.NewFloat64Scalar(1.5), i32, "CAST(1.5 AS int32)"},
	}
	for _, tc := range tests {
		t.Run(tc.in.String()+"_"+tc.to.String(), func(t *testing.T) {
			out, err := Cast(lit(tc.in), tc.to)
			require.NoError(t, err)
			require.Equal(t, tc.want, out.String())
			require.True(t, arrow.TypeEqual(tc.to, out.Type()))
		})
	}
	_, err := Cast(lit(scalar.NewStringScalar("x1")), i32)
	kind, _ := dberr.KindOf(err)
	require.Equal(t, dberr.Conversion, kind)
}

func TestNewAgg(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	tests := []struct {
		name string
		arg  arrow.DataType // nil: no argument
		want arrow.DataType // nil: error
		null bool
	}{
		{"count", nil, i64, false},
		{"count", str, i64, false},
		{"sum", i32, i64, true},
		{"sum", u32, i64, true},
		{"sum", f32, f64, true},
		{"sum", dec, &arrow.Decimal128Type{Precision: 38, Scale: 2}, true},
		{"sum", str, nil, true},
		{"avg", i16, f64, true},
		{"avg", dec, f64, true},
		{"avg", date, nil, true},
		{"min", str, str, true},
		{"max", tsUs, tsUs, true},
		{"max", nil, nil, true},
		{"median", i32, f64, true},
		{"no_such_agg", i32, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var args []plan.Expr
			if tc.arg != nil {
				args = []plan.Expr{col("x", tc.arg, true)}
			}
			a, err := NewAgg(tc.name, args, false, "out")
			if tc.want == nil {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.True(t, arrow.TypeEqual(tc.want, a.DataType), "want %s, got %s", tc.want, a.DataType)
			require.Equal(t, tc.null, a.Null)
		})
	}
}

func TestParseTimestamp(t *testing.T) {
	for in, want := range map[string]string{
		"2026-05-01":                     "2026-05-01T00:00:00Z",
		"2026-05-01 12:00":               "2026-05-01T12:00:00Z",
		"2026-05-01 12:00:00.123456":     "2026-05-01T12:00:00.123456Z",
		"2026-05-01T12:00:00":            "2026-05-01T12:00:00Z",
		"2026-05-01 12:00:00+00":         "2026-05-01T12:00:00Z",
		"2026-05-01 12:00:00-05:30":      "2026-05-01T17:30:00Z",
		"2026-05-01 12:00:00 UTC":        "2026-05-01T12:00:00Z",
		"  2026-05-01 12:00:00.5+01:00 ": "2026-05-01T11:00:00.5Z",
	} {
		got, err := ParseTimestamp(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got.Format(time.RFC3339Nano), in)
	}
	for _, bad := range []string{"", "2026-13-01", "yesterday", "2026-05-01 25:00:00"} {
		_, err := ParseTimestamp(bad)
		kind, _ := dberr.KindOf(err)
		require.Equal(t, dberr.Conversion, kind, bad)
	}
}
