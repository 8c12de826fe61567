package build_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/catalog"
	flexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Aggregates that the parallel (partial + merge) path runs, checked against DuckDB at
// parallelism 1, 3 and 4 by TestEndToEnd.
func init() {
	queries = append(queries, parallelAggQueries...)
}

var parallelAggQueries = []query{
	{
		name: "parallel-stats-distinct-filter",
		sql: `SELECT b, stddev_samp(c), var_pop(c), bool_and(a > 100), bool_or(a > 1000), sum(DISTINCT a % 10),
			avg(DISTINCT a % 7), count(*) FILTER (WHERE c > 0), count(DISTINCT a % 5) FILTER (WHERE i % 2 = 0) FROM t GROUP BY b`,
		plan: func(t catalog.Table) plan.Node {
			s := plan.NewScan(t, []int{0, 1, 2, 3})
			i, a, b, c := ref(col(0), 0), ref(col(1), 1), ref(col(2), 2), ref(col(3), 3)
			cntPos := aggCall("count", i64, false)
			cntPos.Filter = call("gt", bln, c, lit(0.0))
			cntEven := aggCall("count", i64, true, call("modulus", i64, a, lit(int64(5))))
			cntEven.Filter = call("equal", bln, call("modulus", i64, i, lit(int64(2))), lit(int64(0)))
			return plan.NewAggregate(s, []plan.Expr{b}, []string{"b"}, []plan.AggCall{
				aggCall("stddev_samp", f64, false, c), aggCall("var_pop", f64, false, c),
				aggCall("bool_and", bln, false, call("gt", bln, a, lit(int64(100)))),
				aggCall("bool_or", bln, false, call("gt", bln, a, lit(int64(1000)))),
				aggCall("sum", i64, true, call("modulus", i64, a, lit(int64(10)))),
				aggCall("avg", f64, true, call("modulus", i64, a, lit(int64(7)))),
				cntPos, cntEven,
			})
		},
	},
	{
		name: "parallel-ungrouped-over-filter-project",
		sql:  "SELECT count(*), sum(x), avg(c), min(b), max(b), count(DISTINCT b) FROM (SELECT a * 2 AS x, b, c FROM t WHERE i % 3 = 0)",
		plan: func(t catalog.Table) plan.Node {
			s := plan.NewScan(t, []int{0, 1, 2, 3})
			f := &plan.Filter{Input: s, Cond: call("equal", bln, call("modulus", i64, ref(col(0), 0), lit(int64(3))), lit(int64(0)))}
			p := plan.NewProject(f, []plan.Expr{call("multiply", i64, ref(col(1), 1), lit(int64(2))), ref(col(2), 2), ref(col(3), 3)},
				[]string{"x", "b", "c"})
			x, b, c := cref(0, i64), cref(1, str), cref(2, f64)
			return plan.NewAggregate(p, nil, nil, []plan.AggCall{
				aggCall("count", i64, false), aggCall("sum", i64, false, x), aggCall("avg", f64, false, c),
				aggCall("min", str, false, b), aggCall("max", str, false, b), aggCall("count", i64, true, b),
			})
		},
	},
	{
		name: "parallel-select-distinct",
		sql:  "SELECT DISTINCT b, a % 3 FROM t",
		plan: func(t catalog.Table) plan.Node {
			s := plan.NewScan(t, []int{1, 2})
			return plan.NewAggregate(s, []plan.Expr{cref(1, str), call("modulus", i64, cref(0, i64), lit(int64(3)))},
				[]string{"b", "m"}, nil)
		},
	},
}

// runPlan builds and drains p with env, returning the rows (env.Mem must be checked by the
// caller).
func runPlan(t *testing.T, p plan.Node, env flexec.Env) (exectest.Rows, flexec.Operator, error) {
	t.Helper()
	op, err := build.Build(p, env)
	require.NoError(t, err)
	out, err := flexec.Collect(context.Background(), op)
	defer func() {
		for _, b := range out {
			b.Release()
		}
	}()
	return exectest.ToRows(out), op, err
}

// TestParallelAggregateMatchesSerial: the parallel path is taken, and it gives exactly the
// serial results, including approx_count_distinct past its exact range (merged sketches).
func TestParallelAggregateMatchesSerial(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cat, tbl := newTable(t, mem)
	defer cat.Release()
	wide := func() plan.Node { // 1000 distinct values of i*3+a: the sketch goes dense
		s := plan.NewScan(tbl, []int{0, 1, 2})
		v := call("add", i64, call("multiply", i64, cref(0, i64), lit(int64(3))), cref(1, i64))
		return plan.NewAggregate(s, nil, nil, []plan.AggCall{
			aggCall("approx_count_distinct", i64, false, v), aggCall("approx_count_distinct", i64, false, cref(2, str)),
			aggCall("sum", i64, false, v), aggCall("count", i64, true, v),
		})
	}
	empty := func(grouped bool) func() plan.Node {
		return func() plan.Node {
			s := plan.NewScan(tbl, []int{0, 2})
			f := &plan.Filter{Input: s, Cond: call("lt", bln, cref(0, i64), lit(int64(-1)))}
			var keys []plan.Expr
			if grouped {
				keys = []plan.Expr{cref(1, str)}
			}
			return plan.NewAggregate(f, keys, []string{"b"}[:len(keys)], []plan.AggCall{
				aggCall("count", i64, false), aggCall("sum", i64, true, cref(0, i64)), aggCall("max", str, false, cref(1, str)),
			})
		}
	}
	plans := map[string]func() plan.Node{"approx-wide": wide, "empty-grouped": empty(true), "empty-ungrouped": empty(false)}
	for _, q := range parallelAggQueries {
		plans[q.name] = func() plan.Node { return q.plan(tbl) }
	}
	for name, mk := range plans {
		t.Run(name, func(t *testing.T) {
			op, err := build.Build(mk(), flexec.Env{Mem: mem, Parallelism: 4})
			require.NoError(t, err)
			_, parallel := op.(*ops.ParallelAggregate)
			require.True(t, parallel, "an aggregate over a scan pipeline runs in parallel, got %T", op)
			require.NoError(t, op.Close())
			serial, _, err := runPlan(t, mk(), flexec.Env{Mem: mem, Parallelism: 1})
			require.NoError(t, err)
			for _, batch := range []int{1, 5, 0} {
				got, _, err := runPlan(t, mk(), flexec.Env{Mem: mem, Parallelism: 4, BatchSize: batch})
				require.NoError(t, err)
				exectest.RequireRows(t, serial, got, false)
			}
		})
	}
	// Order-sensitive aggregates stay serial.
	s := plan.NewScan(tbl, []int{2})
	op, err := build.Build(plan.NewAggregate(s, nil, nil, []plan.AggCall{aggCall("string_agg", str, false, cref(0, str), lit(","))}),
		flexec.Env{Mem: mem, Parallelism: 4})
	require.NoError(t, err)
	_, parallel := op.(*ops.ParallelAggregate)
	require.False(t, parallel)
	require.NoError(t, op.Close())
}

// TestMemoryLimit: each growing operator fails cleanly (OutOfMemory naming the operator,
// nothing leaked, the pool back at zero) when the query's limit is too small, and the same
// plans pass with the limit lifted.
func TestMemoryLimit(t *testing.T) {
	defer goleak.VerifyNone(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cat, tbl := newTable(t, mem)
	defer cat.Release()
	cases := []struct {
		name, consumer string
		plan           func() plan.Node
	}{
		{"aggregate", "hash aggregate", func() plan.Node {
			return plan.NewAggregate(plan.NewScan(tbl, []int{0}), []plan.Expr{cref(0, i64)}, []string{"i"},
				[]plan.AggCall{aggCall("count", i64, false)})
		}},
		{"distinct-aggregate", "hash aggregate", func() plan.Node {
			return plan.NewAggregate(plan.NewScan(tbl, []int{0}), nil, nil, []plan.AggCall{aggCall("count", i64, true, cref(0, i64))})
		}},
		{"kept-values-aggregate", "hash aggregate", func() plan.Node { // one group: only the values grow
			return plan.NewAggregate(plan.NewScan(tbl, []int{2}), nil, nil, []plan.AggCall{
				aggCall("string_agg", str, false, cref(0, str), lit(", ")), aggCall("list", arrow.ListOf(str), false, cref(0, str))})
		}},
		{"sort", "sort", func() plan.Node {
			return &plan.Sort{Input: plan.NewScan(tbl, []int{0, 2}), Keys: []plan.SortKey{{Expr: cref(1, str)}}}
		}},
		{"hash-join", "hash join build", func() plan.Node {
			return plan.NewJoin(plan.NewScan(tbl, []int{0}), plan.NewScan(tbl, []int{0, 2}), plan.InnerJoin,
				[]plan.Expr{cref(0, i64)}, []plan.Expr{cref(0, i64)}, nil)
		}},
		{"union", "set operation", func() plan.Node {
			return plan.NewSetOp(plan.NewScan(tbl, []int{0}), plan.NewScan(tbl, []int{0}), plan.Union, false)
		}},
	}
	for _, c := range cases {
		for _, par := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/par=%d", c.name, par), func(t *testing.T) {
				env := flexec.Env{Mem: mem, Parallelism: par, Pool: flexec.NewMemoryPool(4 << 10)}
				_, _, err := runPlan(t, c.plan(), env)
				require.Error(t, err)
				kind, ok := dberr.KindOf(err)
				require.True(t, ok, "classified error: %v", err)
				require.Equal(t, dberr.OutOfMemory, kind, "%v", err)
				require.ErrorIs(t, err, flexec.ErrMemoryLimit)
				require.Contains(t, err.Error(), c.consumer)
				require.Contains(t, err.Error(), "4.0 KiB")
				require.Zero(t, env.Pool.Used(), "reservations freed")

				env = flexec.Env{Mem: mem, Parallelism: par, Pool: flexec.NewMemoryPool(0)}
				rows, _, err := runPlan(t, c.plan(), env)
				require.NoError(t, err)
				require.NotEmpty(t, rows)
				require.Greater(t, env.Pool.Peak(), int64(4<<10), "the operator reserved what it kept")
				require.Zero(t, env.Pool.Used())
			})
		}
	}
}

// TestExplainAnalyze: rows, batches and bytes read per operator, workers for parallel
// pipelines, the physical form in the label, and the memory peak.
func TestExplainAnalyze(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cat, tbl := newTable(t, mem)
	defer cat.Release()

	agg := func() plan.Node {
		s := plan.NewScan(tbl, []int{0, 2})
		f := &plan.Filter{Input: s, Cond: call("lt", bln, cref(0, i64), lit(int64(500)))}
		a := plan.NewAggregate(f, []plan.Expr{cref(1, str)}, []string{"b"}, []plan.AggCall{aggCall("count", i64, false)})
		return &plan.Limit{Input: &plan.Sort{Input: a, Keys: []plan.SortKey{{Expr: cref(0, str)}}}, Count: 3}
	}
	_, op, err := runPlan(t, agg(), flexec.Env{Mem: mem, Parallelism: 4, Analyze: true})
	require.NoError(t, err)
	t.Logf("EXPLAIN ANALYZE:\n%s", flexec.Analyze(op))
	lines := strings.Split(strings.TrimSuffix(flexec.Analyze(op), "\n"), "\n")
	require.Len(t, lines, 5, "%s", strings.Join(lines, "\n"))
	require.Regexp(t, `^Limit: offset=0 count=3 \[TopN with Sort: .*\]  \(rows=3 batches=1 time=\S+\)$`, lines[0])
	require.Regexp(t, `^  Aggregate: .*\[parallel: partial per worker, then merge\]  \(rows=8 batches=1 time=\S+\)$`, lines[1])
	require.Regexp(t, `^    Filter: .*  \(rows=500 batches=\d+ time=\S+ workers=4\)$`, lines[2])
	require.Regexp(t, `^      Scan: t .*  \(rows=1000 batches=\d+ time=\S+ read=\S+ KiB workers=4\)$`, lines[3])
	require.Regexp(t, `^Memory: peak \S+ \S*B reserved \(limit unlimited\)$`, lines[4])

	// Serial: one instance each, the bytes read are the scanned columns' share.
	_, op, err = runPlan(t, plan.NewScan(tbl, []int{0}), flexec.Env{Mem: mem, Analyze: true})
	require.NoError(t, err)
	out := flexec.Analyze(op)
	require.Contains(t, out, "(rows=1000 batches=")
	m := regexp.MustCompile(`read=([0-9.]+) KiB\)`).FindStringSubmatch(out)
	require.Len(t, m, 2, out)
	kib, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	require.InDelta(t, 8.5, kib, 0.75, "1000 int64 values (7.8 KiB) plus the hostile layout's padding")
	require.NotContains(t, out, "workers=")

	// Without Analyze nothing is wrapped.
	_, op, err = runPlan(t, plan.NewScan(tbl, []int{0}), flexec.Env{Mem: mem})
	require.NoError(t, err)
	require.Empty(t, flexec.Analyze(op))
}

// TestMemoryLimitPerQuery: an Env with MemoryLimit and no Pool (what a server keeps for
// every query) gives each Build its own pool, so one open query does not eat another's.
func TestMemoryLimitPerQuery(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cat, tbl := newTable(t, mem)
	defer cat.Release()
	sorted := func() plan.Node {
		return &plan.Sort{Input: plan.NewScan(tbl, []int{0, 2}), Keys: []plan.SortKey{{Expr: cref(1, str)}}}
	}
	probe := flexec.Env{Mem: mem, Pool: flexec.NewMemoryPool(0)}
	_, _, err := runPlan(t, sorted(), probe)
	require.NoError(t, err)
	one := probe.Pool.Peak()
	require.Positive(t, one)

	env := flexec.Env{Mem: mem, MemoryLimit: one * 3 / 2} // room for one sort, not two
	first, err := build.Build(sorted(), env)
	require.NoError(t, err)
	require.NoError(t, first.Open(context.Background()))
	b, err := first.Next(context.Background()) // the sort holds its whole input now
	require.NoError(t, err)
	b.Release()
	_, _, err = runPlan(t, sorted(), env)
	require.NoError(t, err, "the second query has its own pool")
	require.NoError(t, first.Close())

	_, _, err = runPlan(t, sorted(), flexec.Env{Mem: mem, MemoryLimit: one / 2})
	kind, _ := dberr.KindOf(err)
	require.Equal(t, dberr.OutOfMemory, kind, "the limit applies: %v", err)
}

func TestExplainAnalyzeRuns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cat, tbl := newTable(t, mem)
	defer cat.Release()
	j := plan.NewJoin(plan.NewScan(tbl, []int{0}), plan.NewScan(tbl, []int{0, 2}), plan.InnerJoin,
		[]plan.Expr{cref(0, i64)}, []plan.Expr{cref(0, i64)}, nil)
	out, err := build.ExplainAnalyze(context.Background(), j, flexec.Env{Mem: mem})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 4, out)
	require.Regexp(t, `^Join: .*\(rows=1000 batches=\d+ time=\S+\)$`, lines[0])
	require.Regexp(t, `^  Scan: .*\(rows=1000 batches=\d+ time=\S+ read=\S+ KiB\)$`, lines[1])
	require.Regexp(t, `^  Scan: .*\(rows=1000 batches=\d+ time=\S+ read=\S+ KiB\)$`, lines[2])
	require.Regexp(t, `^Memory: peak \S+ KiB reserved \(limit unlimited\)$`, lines[3])

	_, err = build.ExplainAnalyze(context.Background(), j, flexec.Env{Mem: mem, MemoryLimit: 1024})
	kind, _ := dberr.KindOf(err)
	require.Equal(t, dberr.OutOfMemory, kind, "%v", err)
}
