package ops_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// Expected values are DuckDB 2.0's over the same rows:
//
//	CREATE TABLE x AS SELECT * FROM (VALUES (1, NULL, 'a'), (1, 2, NULL), (1, 3, 'c'),
//	  (2, NULL, NULL), (3, 5, 'z')) t(g, v, s);
//	SELECT g, first(v), last(v), any_value(v), list(v), string_agg(s, '-'), string_agg(s),
//	  bool_and(v > 2), bool_or(v > 2), stddev_samp(v), stddev_pop(v), var_samp(v), var_pop(v),
//	  approx_count_distinct(v) FROM x GROUP BY g
var (
	moreSchema = schema(field("g", i64), field("v", i64), field("s", str))
	moreRows   = exectest.Rows{{1, nil, "a"}, {1, 2, nil}, {1, 3, "c"}, {2, nil, nil}, {3, 5, "z"}}
)

func moreAggCase(name string, groupBy []plan.Expr, aggs []plan.AggCall, want exectest.Rows) exectest.Case {
	fields := make([]arrow.Field, 0, len(groupBy)+len(aggs))
	for i, g := range groupBy {
		fields = append(fields, field("k"+string(rune('0'+i)), g.Type()))
	}
	for _, a := range aggs {
		fields = append(fields, field(a.Name, a.DataType))
	}
	out := schema(fields...)
	return exectest.Case{
		Name: name, Schema: moreSchema, Input: moreRows, Expected: want,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewAggregate(in, groupBy, aggs, out, env), nil
		},
	}
}

func TestMoreAggregates(t *testing.T) {
	g, v, s := col(0, i64), col(1, i64), col(2, str)
	gt2 := call("gt", bln, v, lit(int64(2)))
	dash := &plan.Literal{Value: scalar.NewStringScalar("-")}
	aggs := []plan.AggCall{
		agg("first", i64, false, v), agg("last", i64, false, v), agg("any_value", i64, false, v),
		agg("list", arrow.ListOf(i64), false, v),
		agg("string_agg", str, false, s, dash), agg("string_agg", str, false, s),
		agg("bool_and", bln, false, gt2), agg("bool_or", bln, false, gt2),
		agg("stddev_samp", f64, false, v), agg("stddev_pop", f64, false, v),
		agg("var_samp", f64, false, v), agg("var_pop", f64, false, v),
		agg("approx_count_distinct", i64, false, v),
	}
	want := exectest.Rows{
		{1, nil, 3, 2, "[null,2,3]", "a-c", "a,c", false, true, 0.7071067811865476, 0.5, 0.5, 0.25, 2},
		{2, nil, nil, nil, "[null]", nil, nil, nil, nil, nil, nil, nil, nil, 0},
		{3, 5, 5, 5, "[5]", "z", "z", true, true, nil, 0.0, nil, 0.0, 1},
	}
	exectest.Run(t, moreAggCase("grouped", []plan.Expr{g}, aggs, want))

	// SELECT count(DISTINCT v), list(DISTINCT v), string_agg(DISTINCT s),
	//   string_agg(s) FILTER (WHERE g = 1), first(v) FILTER (WHERE v > 2) FROM x
	withFilter := func(a plan.AggCall, f plan.Expr) plan.AggCall { a.Filter = f; return a }
	ungrouped := []plan.AggCall{
		agg("count", i64, true, v), agg("list", arrow.ListOf(i64), true, v), agg("string_agg", str, true, s),
		withFilter(agg("string_agg", str, false, s), call("equal", bln, g, lit(int64(1)))),
		withFilter(agg("first", i64, false, v), gt2),
	}
	exectest.Run(t, moreAggCase("distinct-filter", nil, ungrouped,
		exectest.Rows{{3, "[null,2,3,5]", "a,c,z", "a,c", 3}}))

	// On no rows: list, first and string_agg give NULL, approx_count_distinct 0.
	empty := []plan.AggCall{agg("list", arrow.ListOf(i64), false, v), agg("first", i64, false, v),
		agg("string_agg", str, false, s), agg("approx_count_distinct", i64, false, v), agg("var_pop", f64, false, v)}
	exectest.Run(t, exectest.Case{
		Name: "empty", Schema: moreSchema, Expected: exectest.Rows{{nil, nil, nil, 0, nil}},
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			fields := []arrow.Field{field("l", arrow.ListOf(i64)), field("f", i64), field("s", str), field("a", i64), field("v", f64)}
			return ops.NewAggregate(in, nil, empty, schema(fields...), env), nil
		},
	})
}

// approx_count_distinct is exact up to 1024 distinct values per group and a HyperLogLog
// estimate (standard error about 1.6%) beyond.
func TestApproxCountDistinct(t *testing.T) {
	for _, c := range []struct{ rows, mod int }{{3000, 1000}, {60000, 5000}, {60000, 60000}} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		env := exec.Env{Mem: mem, BatchSize: 4096}.WithDefaults()
		sch := schema(field("x", i64))
		rows := make(exectest.Rows, c.rows)
		for i := range rows {
			rows[i] = []any{int64(i % c.mod)}
		}
		aggs := []plan.AggCall{agg("approx_count_distinct", i64, false, col(0, i64))}
		op := ops.NewAggregate(fixedSource(t, env, sch, rows), nil, aggs, schema(field("n", i64)), env)
		out, err := exec.Collect(context.Background(), op)
		require.NoError(t, err)
		got := exectest.ToRows(out)[0][0].(int64)
		for _, b := range out {
			b.Release()
		}
		mem.AssertSize(t, 0)
		if c.mod <= 1024 {
			require.Equal(t, int64(c.mod), got)
			continue
		}
		require.InDelta(t, float64(c.mod), float64(got), 0.05*float64(c.mod), "estimate of %d distinct", c.mod)
	}
}

// first and last over many batches and groups keep only the values they need (the store
// compacts), and give the same answer as a direct computation.
func TestFirstLastManyBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := exec.Env{Mem: mem, BatchSize: 100}.WithDefaults()
	sch := schema(field("g", i64), field("s", str))
	const n, groups = 20000, 300
	rows := make(exectest.Rows, n)
	want := map[int64][2]string{}
	for i := range rows {
		g := int64(i*7919) % groups
		sv := string(rune('a'+i%26)) + string(rune('A'+i%17))
		rows[i] = []any{g, sv}
		w := want[g]
		if w[0] == "" {
			w[0] = sv
		}
		w[1] = sv
		want[g] = w
	}
	aggs := []plan.AggCall{agg("first", str, false, col(1, str)), agg("last", str, false, col(1, str))}
	op := ops.NewAggregate(fixedSource(t, env, sch, rows), []plan.Expr{col(0, i64)}, aggs,
		schema(field("g", i64), field("f", str), field("l", str)), env)
	out, err := exec.Collect(context.Background(), op)
	require.NoError(t, err)
	got := exectest.ToRows(out)
	for _, b := range out {
		b.Release()
	}
	require.Len(t, got, groups)
	for _, r := range got {
		w := want[r[0].(int64)]
		require.Equal(t, w[0], r[1])
		require.Equal(t, w[1], r[2])
	}
}
