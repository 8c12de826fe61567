package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// The result types are DuckDB 2.0's (SELECT typeof(...)).
func TestMoreScalarTypes(t *testing.T) {
	d52 := &arrow.Decimal128Type{Precision: 5, Scale: 2}
	decLit := lit(scalar.NewDecimal128Scalar(decimal128.FromI64(275), d52))
	null := lit(scalar.MakeNullScalar(arrow.Null))
	runCallCases(t, []callCase{
		{"sin", []plan.Expr{col("a", i32, true)}, "sin(CAST(a#0 AS float64)) float64 null", 0},
		{"atan2", []plan.Expr{col("a", f64, false), col("b", f64, false)}, "atan2(a#0, b#0) float64", 0},
		{"factorial", []plan.Expr{col("a", i64, false)}, "factorial(CAST(a#0 AS int32)) decimal(38, 0)", 0},
		{"gcd", []plan.Expr{col("a", i32, false), col("b", i8, true)}, "gcd(CAST(a#0 AS int64), CAST(b#0 AS int64)) int64 null", 0},
		{"gcd", []plan.Expr{col("a", str, false), col("b", i8, true)}, "", dberr.Binder},
		{"isnan", []plan.Expr{col("a", f32, true)}, "isnan(CAST(a#0 AS float64)) bool null", 0},
		{"ascii", []plan.Expr{col("s", str, true)}, "ascii(s#0) int32 null", 0},
		{"chr", []plan.Expr{col("a", i64, false)}, "chr(CAST(a#0 AS int32)) utf8", 0},
		{"trunc", []plan.Expr{col("a", i32, false)}, "trunc(a#0) int32", 0},
		{"trunc", []plan.Expr{col("a", f32, false)}, "trunc(a#0) float32", 0},
		{"trunc", []plan.Expr{decLit}, "trunc(2.75) decimal(5, 0)", 0},
		{"trunc", []plan.Expr{decLit, lit(scalar.NewInt32Scalar(1))}, "trunc(2.75, 1) decimal(5, 1)", 0},
		{"trunc", []plan.Expr{null}, "trunc(NULL) int64 null", 0},
		{"round", []plan.Expr{null}, "round(NULL) int64 null", 0},
		{"floor", []plan.Expr{null}, "floor(NULL) float64 null", 0},
		{"abs", []plan.Expr{null}, "abs(NULL) int64 null", 0},
		{"last_day", []plan.Expr{col("t", tsUs, true)}, "last_day(t#0) date32 null", 0},
		{"last_day", []plan.Expr{col("a", i32, true)}, "", dberr.Binder},
		{"date_diff", []plan.Expr{lit(scalar.NewStringScalar("day")), col("d", date, false), col("t", tsUs, false)}, "date_diff('day', CAST(d#0 AS timestamp[us]), t#0) int64", 0},
		{"date_diff", []plan.Expr{lit(scalar.NewStringScalar("day")), col("d", date, false), col("s", str, false)}, "", dberr.Binder},
		{"strftime", []plan.Expr{col("d", date, true), lit(scalar.NewStringScalar("%Y"))}, "strftime(CAST(d#0 AS timestamp[us]), '%Y') utf8 null", 0},
		{"strftime", []plan.Expr{lit(scalar.NewStringScalar("%Y")), col("t", tsUs, false)}, "strftime(t#0, '%Y') utf8", 0},
		{"strftime", []plan.Expr{col("a", i32, false), lit(scalar.NewStringScalar("%Y"))}, "", dberr.Binder},
	})
	require.Equal(t, "date_diff", Aliases["datediff"])
}

func TestOrderStatAggTypes(t *testing.T) {
	d := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	q := func(f float64) plan.Expr { return lit(scalar.NewFloat64Scalar(f)) }
	tests := []struct {
		name string
		args []plan.Expr
		want arrow.DataType // nil: an error
	}{
		{"median", []plan.Expr{col("x", i32, true)}, f64},
		{"median", []plan.Expr{col("x", d, true)}, d},
		{"median", []plan.Expr{col("x", str, true)}, str},
		{"median", []plan.Expr{col("x", date, true)}, nil},
		{"quantile_cont", []plan.Expr{col("x", i64, true), q(0.25)}, f64},
		{"quantile_cont", []plan.Expr{col("x", i64, true), q(1.5)}, nil},
		{"quantile_cont", []plan.Expr{col("x", i64, true), col("q", f64, true)}, nil},
		{"quantile_disc", []plan.Expr{col("x", str, true), lit(scalar.NewInt32Scalar(1))}, str},
		{"mode", []plan.Expr{col("x", date, true)}, date},
		{"arg_max", []plan.Expr{col("x", str, true), col("y", i64, true)}, str},
		{"arg_min", []plan.Expr{col("x", i64, true)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAgg(tc.name, tc.args, false, "out")
			if tc.want == nil {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.True(t, arrow.TypeEqual(tc.want, a.DataType), "want %s, got %s", tc.want, a.DataType)
		})
	}
}
