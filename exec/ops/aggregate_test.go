package ops_test

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

var aggSchema = schema(field("g", str), field("x", i64), field("f", f64), field("d", dt32), field("b", bln))

var aggRows = exectest.Rows{
	{"a", 1, 1.5, 10, true},
	{"b", 5, nil, 20, false},
	{"a", nil, 2.5, nil, nil},
	{nil, 7, -1.0, 5, true},
	{"a", 1, 3.0, 30, false},
	{"b", -2, 4.0, 1, true},
	{nil, nil, nil, nil, nil},
	{"c", nil, nil, nil, nil},
}

func agg(fn string, dt arrow.DataType, distinct bool, args ...plan.Expr) plan.AggCall {
	return plan.AggCall{Func: fn, Args: args, Distinct: distinct, DataType: dt, Null: true, Name: fn}
}

func aggCase(name string, groupBy []plan.Expr, aggs []plan.AggCall, input, want exectest.Rows) exectest.Case {
	out := aggOutSchema(groupBy, aggs)
	return exectest.Case{
		Name: name, Schema: aggSchema, Input: input, Expected: want,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewAggregate(in, groupBy, aggs, out, env), nil
		},
	}
}

func TestAggregateGroupBy(t *testing.T) {
	aggs := []plan.AggCall{
		agg("count", i64, false),
		agg("count", i64, false, col(1, i64)),
		agg("sum", i64, false, col(1, i64)),
		agg("avg", f64, false, col(1, i64)),
		agg("min", i64, false, col(1, i64)),
		agg("max", f64, false, col(2, f64)),
		agg("min", dt32, false, col(3, dt32)),
		agg("max", bln, false, col(4, bln)),
		agg("count", i64, true, col(1, i64)),
		agg("sum", f64, false, col(2, f64)),
	}
	want := exectest.Rows{
		{"a", 3, 2, 2, 1.0, 1, 3.0, arrow.Date32(10), true, 1, 7.0},
		{"b", 2, 2, 3, 1.5, -2, 4.0, arrow.Date32(1), true, 2, 4.0},
		{nil, 2, 1, 7, 7.0, 7, -1.0, arrow.Date32(5), true, 1, -1.0},
		{"c", 1, 0, nil, nil, nil, nil, nil, nil, 0, nil},
	}
	exectest.Run(t, aggCase("by-string", []plan.Expr{col(0, str)}, aggs, aggRows, want))
}

func TestAggregateMultiKey(t *testing.T) {
	aggs := []plan.AggCall{agg("count", i64, false), agg("max", str, false, col(0, str))}
	want := exectest.Rows{
		{true, "a", 2, "b"},
		{false, "a", 2, "b"},
		{nil, "a", 2, "c"},
		{true, nil, 1, nil},
		{nil, nil, 1, nil},
	}
	// group by (b, g = 'a' ? 'a' : NULL) to mix bool keys, string keys and NULL keys.
	gKey := call("case", str, call("is_not_null", bln, col(0, str)), lit("a"))
	exectest.Run(t, aggCase("bool-and-case", []plan.Expr{col(4, bln), gKey}, aggs, aggRows, want))
}

func TestAggregateNoGroupBy(t *testing.T) {
	aggs := []plan.AggCall{
		agg("count", i64, false),
		agg("count", i64, false, col(1, i64)),
		agg("sum", i64, false, col(1, i64)),
		agg("avg", f64, false, col(2, f64)),
		agg("min", str, false, col(0, str)),
		agg("max", str, false, col(0, str)),
		agg("count", i64, true, col(0, str)),
	}
	exectest.Run(t, aggCase("all", nil, aggs, aggRows,
		exectest.Rows{{8, 5, 12, 2.0, "a", "c", 3}}))
	exectest.Run(t, aggCase("empty", nil, aggs, nil,
		exectest.Rows{{0, 0, nil, nil, nil, nil, 0}}))
	exectest.Run(t, aggCase("empty-grouped", []plan.Expr{col(0, str)}, aggs, nil, nil))
}

func TestAggregateFilterAndDistinct(t *testing.T) {
	withFilter := agg("sum", i64, false, col(1, i64))
	withFilter.Filter = call("gt", bln, col(1, i64), lit(int64(1)))
	sumDistinct := agg("sum", i64, true, col(1, i64))
	countStarFiltered := agg("count", i64, false)
	countStarFiltered.Filter = call("is_null", bln, col(1, i64))
	exectest.Run(t, aggCase("filter", []plan.Expr{col(0, str)},
		[]plan.AggCall{withFilter, sumDistinct, countStarFiltered}, aggRows,
		exectest.Rows{{"a", nil, 1, 1}, {"b", 5, 3, 0}, {nil, 7, 7, 1}, {"c", nil, nil, 1}}))
}

func TestAggregateFloatGroups(t *testing.T) {
	// -0.0 and 0.0 are one group, all NaNs are one group; NaN is the largest value.
	in := exectest.Rows{
		{"a", 1, 0.0, 1, true}, {"a", 2, math.Copysign(0, -1), 1, true},
		{"a", 3, math.NaN(), 1, true}, {"a", 4, math.NaN(), 1, true}, {"a", 5, 2.0, 1, true},
	}
	exectest.Run(t, aggCase("zeros-and-nans", []plan.Expr{col(2, f64)},
		[]plan.AggCall{agg("count", i64, false)}, in,
		exectest.Rows{{0.0, 2}, {math.NaN(), 2}, {2.0, 1}}))
	exectest.Run(t, aggCase("nan-is-max", nil,
		[]plan.AggCall{agg("max", f64, false, col(2, f64)), agg("min", f64, false, col(2, f64))}, in,
		exectest.Rows{{math.NaN(), math.Copysign(0, -1)}}))
}

func TestAggregateNullTyped(t *testing.T) {
	nullCol := &plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}
	exectest.Run(t, aggCase("null-arg", []plan.Expr{nullCol},
		[]plan.AggCall{agg("sum", i64, false, nullCol), agg("max", arrow.Null, false, nullCol), agg("count", i64, false, nullCol), agg("count", i64, false)},
		aggRows, exectest.Rows{{nil, nil, nil, 0, 8}}))
}

func TestAggregateSumOverflow(t *testing.T) {
	in := exectest.Rows{{"a", math.MaxInt64, nil, nil, nil}, {"a", 1, nil, nil, nil}}
	exectest.Run(t, exectest.Case{
		Name: "int64", Schema: aggSchema, Input: in,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewAggregate(in, nil, []plan.AggCall{agg("sum", i64, false, col(1, i64))}, schema(field("sum", i64)), env), nil
		},
		WantErr: func(t *testing.T, err error) {
			k, _ := dberr.KindOf(err)
			require.Equal(t, dberr.OutOfRange, k)
		},
	})
	// Summed in 128 bits, the same input fits a DECIMAL(38,0) (DuckDB's HUGEINT on the wire).
	dec := &arrow.Decimal128Type{Precision: 38, Scale: 0}
	exectest.Run(t, aggCase("hugeint", nil, []plan.AggCall{agg("sum", dec, false, col(1, i64)), agg("avg", f64, false, col(1, i64))}, in,
		exectest.Rows{{"9223372036854775808", 4.611686018427387904e18}}))
}
