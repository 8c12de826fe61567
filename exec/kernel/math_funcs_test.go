package kernel_test

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestMathFuncsVsDuckDB(t *testing.T) {
	m := func(fn string, args ...any) fcase { return fcase{fn: fn, args: args} }
	f64 := arrow.PrimitiveTypes.Float64
	runDiff(t, []fcase{
		m("abs", int64(-5)), m("abs", int32(7)), m("abs", -2.5), m("abs", dec{"-12.34", 6, 2}),
		{fn: "abs", args: []any{int64(math.MinInt64)}, errSub: "Overflow"},
		m("ceil", 1.2), m("ceil", -1.2), m("ceil", int64(5)), m("ceil", dec{"1.21", 5, 2}), m("ceil", dec{"-1.21", 5, 2}),
		m("floor", -1.2), m("floor", 1.8), m("floor", dec{"-1.21", 5, 2}), m("floor", dec{"1.99", 5, 2}),
		m("round", 2.5), m("round", -2.5), m("round", -0.5), m("round", 0.49999), m("round", 0.125, int32(2)),
		m("round", 1234.5, int32(-2)), m("round", 1250.0, int32(-2)), m("round", -1250.0, int32(-2)),
		m("round", dec{"2.5", 2, 1}), m("round", dec{"-2.5", 2, 1}), m("round", dec{"1.2345", 6, 4}, int32(2)),
		m("round", dec{"1.2355", 6, 4}, int32(3)), m("round", dec{"1234.5", 6, 1}, int32(-2)),
		m("round", int32(17), int32(-1)), m("round", int64(-15), int32(-1)), m("round", int64(14), int32(-1)),
		m("round", int64(7), int32(2)), m("round", math.Inf(1), int32(2)),
		m("sqrt", 4.0), m("sqrt", -1.0), m("sqrt", int64(2)), m("sqrt", math.NaN()),
		m("ln", 1.0), m("ln", 0.0), m("ln", -1.0), m("ln", math.E),
		m("log10", 1000.0), m("log10", 0.0), m("log2", 8.0), m("log2", 0.5),
		m("exp", 1.0), m("exp", 1000.0), m("exp", int64(0)),
		m("power", 2.0, 10.0), m("power", -8.0, 1.0/3), m("power", 10.0, 400.0), m("power", 2.0, -1.0),
		m("sign", -3.0), m("sign", 0.0), m("sign", int64(42)), m("sign", dec{"-0.5", 3, 1}),
		m("greatest", int64(1), int64(3), int64(2)), m("greatest", "b", "a", "c"), m("greatest", 1.5, math.NaN()),
		m("least", 1.5, -2.0, 0.0), m("least", dec{"1.5", 3, 1}, dec{"-1.5", 3, 1}),
		m("greatest", int64(1), null{arrow.PrimitiveTypes.Int64}, int64(0)),
		m("least", int64(1), null{arrow.PrimitiveTypes.Int64}, int64(0)),
		m("least", null{arrow.PrimitiveTypes.Int64}, int64(5)),
		m("greatest", arrow.Date32(19000), arrow.Date32(19500)), m("greatest", true, false),
		m("nullif", int64(1), int64(1)), m("nullif", int64(1), int64(2)), m("nullif", "a", "a"),
		m("nullif", "a", "b"), m("nullif", 1.5, null{f64}), m("nullif", null{f64}, 1.5),
		{fn: "is_distinct_from", args: []any{int64(1), null{arrow.PrimitiveTypes.Int64}}, sql: "%s IS DISTINCT FROM %s"},
		{fn: "is_distinct_from", args: []any{int64(1), int64(1)}, sql: "%s IS DISTINCT FROM %s"},
		{fn: "is_distinct_from", args: []any{"a", "b"}, sql: "%s IS DISTINCT FROM %s"},
		{fn: "is_not_distinct_from", args: []any{null{f64}, null{f64}}, sql: "%s::DOUBLE IS NOT DISTINCT FROM %s::DOUBLE"},
		{fn: "is_not_distinct_from", args: []any{math.NaN(), math.NaN()}, sql: "%s IS NOT DISTINCT FROM %s"},
		{fn: "is_not_distinct_from", args: []any{0.0, 1.0}, sql: "%s IS NOT DISTINCT FROM %s"},
		{fn: "is_not_distinct_from", args: []any{dec{"1.50", 4, 2}, dec{"1.50", 4, 2}}, sql: "%s IS NOT DISTINCT FROM %s"},
	})
}
