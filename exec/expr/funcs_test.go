package expr_test

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// The string, math and date functions are reached through Compile, and their results are
// cast to the call's type (the kernels' own values are checked against DuckDB in
// exec/kernel).
func TestKernelFunctions(t *testing.T) {
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	month := &plan.Literal{Value: scalar.NewMonthDayNanoIntervalScalar(arrow.MonthDayNanoInterval{Months: 1})}
	cases := []struct {
		name string
		e    plan.Expr
		want []any
	}{
		{"upper", fn("upper", str, col(3)), []any{"APPLE", "BANANA", nil, "", "ÁBC", "A_C"}},
		{"length-as-int32", fn("length", i32, col(3)), []any{5, 6, nil, 0, 3, 3}},
		{"substring", fn("substring", str, col(3), lit(int64(2)), lit(int64(2))), []any{"pp", "an", nil, "", "bc", "_c"}},
		{"round-int-to-int64", fn("round", i64, col(0), lit(int32(-1))), []any{10, -10, nil, 0, 10, nil}},
		{"abs-float", fn("abs", f64, col(2)), []any{1.5, 0.5, nil, 2.0, 0.0, nil}},
		{"greatest", fn("greatest", i64, col(0), col(1)), []any{7, 2, 3, 0, 9, nil}},
		{"nullif", fn("nullif", i64, col(0), lit(int64(0))), []any{7, -7, nil, nil, 9, nil}},
		{"is_not_distinct_from", fn("is_not_distinct_from", bln, col(0), col(1)), []any{false, false, false, false, false, true}},
		{"year", fn("year", i64, col(6)), []any{1970, 1970, nil, 1970, 1970, nil}},
		{"date-plus-int", fn("add", d32, col(6), lit(int32(1))), []any{arrow.Date32(101), arrow.Date32(201), nil, arrow.Date32(101), arrow.Date32(51), nil}},
		{"date-minus-date", fn("subtract", i64, col(6), lit(arrow.Date32(50))), []any{50, 150, nil, 50, 0, nil}},
		{"date-plus-interval", fn("date_part", i64, lit("month"), fn("add", ts, col(6), month)), []any{5, 8, nil, 5, 3, nil}},
		{"date_trunc-as-date", fn("date_trunc", d32, lit("month"), col(6)),
			[]any{arrow.Date32(90), arrow.Date32(181), nil, arrow.Date32(90), arrow.Date32(31), nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := eval(t, c.e)
			require.NoError(t, err)
			require.Len(t, got, len(c.want))
			for i := range got {
				require.Equal(t, c.want[i] == nil, got[i] == nil, "row %d: want %v, got %v", i, c.want[i], got[i])
			}
			requireRow(t, c.want, got)
		})
	}
}

func requireRow(t *testing.T, want, got []any) {
	t.Helper()
	for i := range want {
		if want[i] == nil {
			continue
		}
		switch w := want[i].(type) {
		case int:
			require.EqualValues(t, w, got[i], "row %d", i)
		default:
			require.Equal(t, w, got[i], "row %d", i)
		}
	}
}

func TestCurrentDateTimestamp(t *testing.T) {
	before := time.Now().UTC()
	got, err := eval(t, &plan.Call{Func: "current_date", DataType: d32})
	require.NoError(t, err)
	after := time.Now().UTC()
	d := got[0].(arrow.Date32)
	require.Contains(t, []arrow.Date32{arrow.Date32FromTime(before), arrow.Date32FromTime(after)}, d)
	for _, v := range got {
		require.Equal(t, d, v, "one value for every row")
	}
	// Each compilation takes its own time, so evaluate one layout only.
	got, err = evalLayout(t, &plan.Call{Func: "current_timestamp", DataType: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}}, exectest.Plain)
	require.NoError(t, err)
	require.Len(t, got, len(inRows))
	for _, v := range got {
		require.Equal(t, got[0], v, "one value for every row")
	}
	// A plan typing it as a timestamp without time zone gets one.
	got, err = evalLayout(t, &plan.Call{Func: "current_timestamp", DataType: &arrow.TimestampType{Unit: arrow.Microsecond}}, exectest.Plain)
	require.NoError(t, err)
	require.Len(t, got, len(inRows))

	_, err = eval(t, &plan.Call{Func: "no_such_function", DataType: d32})
	k, ok := dberr.KindOf(err)
	require.True(t, ok)
	require.Equal(t, dberr.NotImplemented, k)
}
