package ops_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

var distinctIntPath = fastPath{ops.DisableDistinctInts, ops.DistinctIntPairs}

// distinctIntAggs returns DISTINCT aggregates over every integer column of intKeySchema
// (int64 with extremes, date32, int8, uint64, int32, all with NULLs), including the ones
// that keep one NULL (list, first).
func distinctIntAggs() []plan.AggCall {
	a, b, c, u, x, p := col(0, i64), col(1, dt32), col(2, arrow.PrimitiveTypes.Int8),
		col(3, arrow.PrimitiveTypes.Uint64), col(4, i64), col(6, i32)
	filtered := agg("count", i64, true, x)
	filtered.Filter = call("gt", bln, x, lit(int64(40)))
	return []plan.AggCall{agg("count", i64, true, a), agg("count", i64, true, b), agg("count", i64, true, c),
		agg("count", i64, true, u), agg("count", i64, true, x), agg("count", i64, true, p),
		agg("sum", dec(38, 0), true, x), agg("min", i64, true, a), filtered,
		agg("list", arrow.ListOf(i64), true, x), agg("first", i64, true, x), agg("list", arrow.ListOf(i32), true, p)}
}

// TestAggregateDistinctInts: DISTINCT sets over integer arguments give what the general
// (encoded string) sets give, grouped by a string, by an integer and by nothing, at batch
// sizes 1, 3 and the default.
func TestAggregateDistinctInts(t *testing.T) {
	defer func(sizes []int) { exectest.BatchSizes = sizes }(exectest.BatchSizes)
	exectest.BatchSizes = []int{1, 3, 0}
	aggs := distinctIntAggs()
	keySets := map[string][]plan.Expr{"none": nil, "string": {col(5, str)}, "int32": {col(6, i32)}}
	for name, keys := range keySets {
		for _, distinct := range []int{3, 300} {
			rows := intKeyRows(400, distinct, uint64(distinct)+3)
			out := aggOutSchema(keys, aggs)
			make := func(in exec.Operator, env exec.Env) *ops.Aggregate { return ops.NewAggregate(in, keys, aggs, out, env) }
			want := generalAggregate(t, intKeySchema, make, distinctIntPath, rows)
			made := runAggregates(t, fmt.Sprintf("%s/distinct=%d", name, distinct), rows, want, make)
			for _, a := range made {
				require.Positive(t, ops.DistinctIntPairs(a), "the integer DISTINCT sets were not used")
			}
		}
	}
}

// runAggregates runs exectest.Run over rows of intKeySchema with the aggregates make builds
// (ordered output want) and returns every aggregate it built.
func runAggregates(t *testing.T, name string, rows, want exectest.Rows,
	make func(exec.Operator, exec.Env) *ops.Aggregate) []*ops.Aggregate {
	var made []*ops.Aggregate
	exectest.Run(t, exectest.Case{Name: name, Schema: intKeySchema, Input: rows, Expected: want, Ordered: true,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			a := make(in, env)
			made = append(made, a)
			return a, nil
		}})
	return made
}
