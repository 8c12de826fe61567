package ops_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// fusedRows: g cycles through short strings, NULL and a string too long for a packed key;
// x is i%7-1 (NULL every 11th row); f cycles 0, 5, 10, 15 (NULL every 13th row).
func fusedRows() exectest.Rows {
	gs := []any{"a", "b", "cc", nil, "longer-than-seven"}
	var rows exectest.Rows
	for i := range 60 {
		var x, f any = int64(i%7 - 1), float64(i%4) * 5
		if i%11 == 0 {
			x = nil
		}
		if i%13 == 0 {
			f = nil
		}
		rows = append(rows, []any{gs[i%5], x, f, arrow.Date32(i), i%3 == 0})
	}
	return rows
}

// fusedAggs covers the fast accumulators (count, sum, avg), the general ones (min, max),
// DISTINCT and FILTER.
func fusedAggs() []plan.AggCall {
	x, f, d, b := col(1, i64), col(2, f64), col(3, dt32), col(4, bln)
	filtered := agg("sum", i64, false, x)
	filtered.Filter = b
	return []plan.AggCall{
		agg("count", i64, false), agg("count", i64, false, x), agg("sum", i64, false, x),
		agg("avg", f64, false, f), agg("min", f64, false, f), agg("max", dt32, false, d),
		agg("count", i64, true, x), filtered, agg("sum", f64, false, f),
	}
}

// unfused runs Filter then Aggregate over rows in one batch: the expected result.
func unfused(t *testing.T, cond plan.Expr, groupBy []plan.Expr, aggs []plan.AggCall, out *arrow.Schema, rows exectest.Rows) exectest.Rows {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	batches, err := exectest.MakeBatches(mem, aggSchema, rows, 0, exectest.Plain)
	require.NoError(t, err)
	env := exec.Env{Mem: mem}
	op := ops.NewAggregate(ops.NewFilter(exectest.NewSource(aggSchema, batches), cond, env), groupBy, aggs, out, env)
	got, err := exec.Collect(context.Background(), op)
	require.NoError(t, err)
	defer func() {
		for _, b := range got {
			b.Release()
		}
	}()
	return exectest.ToRows(got)
}

// TestAggregateFusedFilter: an aggregate applying its input's filter itself gives what Filter
// then Aggregate give, at every selectivity (all rows taken, some masked, few taken) and
// batch size, grouped by a string (packed keys with fallbacks) and ungrouped.
func TestAggregateFusedFilter(t *testing.T) {
	x, f := col(1, i64), col(2, f64)
	conds := map[string]plan.Expr{
		"high": call("gte", bln, x, lit(int64(0))), // 6 of 7 non-NULL x
		"mid":  call("lt", bln, f, lit(9.2)),       // half of the non-NULL f
		"low":  call("gte", bln, x, lit(int64(4))), // 2 of 7
		"two": call("and", bln, call("gte", bln, x, lit(int64(0))),
			call("lte", bln, &plan.Cast{Input: x, DataType: f64}, lit(4.0))),
		"none": call("gt", bln, x, lit(int64(100))),
		// comparisons of one column merged into one range (mergeRanges); <> is not merged
		"range": call("and", bln, call("gte", bln, x, lit(int64(0))), call("lt", bln, x, lit(int64(4))),
			call("gte", bln, x, lit(int64(1)))),
		"range-with-ne": call("and", bln, call("gte", bln, x, lit(int64(0))), call("not_equal", bln, x, lit(int64(2))),
			call("lte", bln, x, lit(int64(4)))),
		"empty-range": call("and", bln, call("gt", bln, x, lit(int64(3))), call("lt", bln, x, lit(int64(2)))),
	}
	rows := fusedRows()
	for name, cond := range conds {
		for _, grouped := range []bool{true, false} {
			var keys []plan.Expr
			if grouped {
				keys = []plan.Expr{col(0, str)}
			}
			c := aggCase(name, keys, fusedAggs(), rows, nil)
			require.True(t, ops.FusableFilter(cond))
			out := aggOutSchema(keys, fusedAggs())
			c.Expected = unfused(t, cond, keys, fusedAggs(), out, rows)
			if (name != "none" && name != "empty-range") || !grouped {
				require.NotEmpty(t, c.Expected)
			}
			c.Make = func(in exec.Operator, env exec.Env) (exec.Operator, error) {
				a := ops.NewAggregate(in, keys, fusedAggs(), out, env)
				a.SetInputFilter(cond)
				return a, nil
			}
			exectest.Run(t, c)
		}
	}
}

// TestAggregateFusedFilterRetry: an argument that fails on rows the filter rejects (a cast
// overflowing BIGINT) does not fail the fused aggregate (the batch is retried on the
// selected rows), while the same aggregate over every row does fail.
func TestAggregateFusedFilterRetry(t *testing.T) {
	f := col(2, f64)
	big := &plan.Cast{Input: call("multiply", f64, f, lit(1e18)), DataType: i64}
	aggs := []plan.AggCall{agg("count", i64, false, big), agg("max", i64, false, big)}
	keys := []plan.Expr{col(0, str)}
	out := aggOutSchema(keys, aggs)
	cond := call("lt", bln, f, lit(9.2)) // f in {0, 5}: 5e18 fits, 1e19 does not
	rows := fusedRows()
	c := aggCase("retry", keys, aggs, rows, nil)
	c.Expected = unfused(t, cond, keys, aggs, out, rows)
	c.Make = func(in exec.Operator, env exec.Env) (exec.Operator, error) {
		a := ops.NewAggregate(in, keys, aggs, out, env)
		a.SetInputFilter(cond)
		return a, nil
	}
	exectest.Run(t, c)
	c.Name, c.Make = "unfiltered-fails", func(in exec.Operator, env exec.Env) (exec.Operator, error) {
		return ops.NewAggregate(in, keys, aggs, out, env), nil
	}
	c.WantErr = func(t *testing.T, err error) { require.ErrorContains(t, err, "out of range") }
	exectest.Run(t, c)
}

// TestFusableFilter: only conjunctions of comparisons that cannot fail are fused.
func TestFusableFilter(t *testing.T) {
	x := col(1, i64)
	cases := []struct {
		name string
		cond plan.Expr
		want bool
	}{
		{"nil", nil, false},
		{"compare", call("lt", bln, x, lit(int64(3))), true},
		{"and-of-compares", call("and", bln, call("lt", bln, x, lit(int64(3))), call("gt", bln, col(2, f64), lit(1.0))), true},
		{"arithmetic", call("lt", bln, call("divide", i64, lit(int64(1)), x), lit(int64(3))), false},
		{"or", call("or", bln, call("lt", bln, x, lit(int64(3))), call("gt", bln, x, lit(int64(5)))), false},
		{"integer-cast", call("lt", bln, &plan.Cast{Input: col(2, f64), DataType: i64}, lit(int64(3))), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { require.Equal(t, c.want, ops.FusableFilter(c.cond)) })
	}
}

// aggOutSchema is aggCase's output schema.
func aggOutSchema(groupBy []plan.Expr, aggs []plan.AggCall) *arrow.Schema {
	fields := make([]arrow.Field, 0, len(groupBy)+len(aggs))
	for i, g := range groupBy {
		fields = append(fields, field("k"+string(rune('0'+i)), g.Type()))
	}
	for _, a := range aggs {
		fields = append(fields, field(a.Name, a.DataType))
	}
	return schema(fields...)
}

// TestAggregateFusedMaskRetry: with one range test on an integer column the fused filter is
// a mask; an argument that overflows only on rows it rejects (x*4e18 for x >= 3) still does
// not fail the query, while the same aggregate over every row does.
func TestAggregateFusedMaskRetry(t *testing.T) {
	x := col(1, i64)
	big := call("multiply", i64, x, lit(int64(4e18)))
	aggs := []plan.AggCall{agg("count", i64, false, big), agg("max", i64, false, big), agg("sum", f64, false, col(2, f64))}
	keys := []plan.Expr{col(0, str)}
	out := aggOutSchema(keys, aggs)
	cond := call("lt", bln, x, lit(int64(3))) // 4 of the 7 values of x: a masked batch
	rows := fusedRows()
	c := aggCase("mask-retry", keys, aggs, rows, nil)
	c.Expected = unfused(t, cond, keys, aggs, out, rows)
	require.NotEmpty(t, c.Expected)
	c.Make = func(in exec.Operator, env exec.Env) (exec.Operator, error) {
		a := ops.NewAggregate(in, keys, aggs, out, env)
		a.SetInputFilter(cond)
		return a, nil
	}
	exectest.Run(t, c)
	c.Name, c.Make = "unfiltered-fails", func(in exec.Operator, env exec.Env) (exec.Operator, error) {
		return ops.NewAggregate(in, keys, aggs, out, env), nil
	}
	c.WantErr = func(t *testing.T, err error) { require.ErrorContains(t, err, "verflow") }
	exectest.Run(t, c)
}
