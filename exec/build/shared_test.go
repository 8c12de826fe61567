package build_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	flexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/planner/plan"
)

// TestSharedSubplans: an aggregate subtree written twice runs once (one scan of f in the
// EXPLAIN ANALYZE tree instead of two) and the results equal the unshared run, with serial
// and parallel execution and several batch sizes; a run-time filter of a join over one
// occurrence does not narrow the rows the other one reads; subtrees that differ are not
// shared.
func TestSharedSubplans(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cat, f, dm := rfTables(t, mem)
	defer cat.Release()
	// revenue: SELECT k, sum(v) AS s, count(*) AS c FROM f GROUP BY k (k nullable).
	revenue := func(minV int64) plan.Node {
		var in plan.Node = plan.NewScan(f, []int{0, 3})
		if minV > 0 {
			in = &plan.Filter{Input: in, Cond: call("gte", bln, cref(1, i64), lit(minV))}
		}
		return plan.NewAggregate(in, []plan.Expr{cref(0, i64)}, []string{"k"},
			[]plan.AggCall{aggCall("sum", i64, false, cref(1, i64)), aggCall("count", i64, false)})
	}
	maxOf := func(n plan.Node, col int) plan.Node {
		return plan.NewAggregate(n, nil, nil, []plan.AggCall{aggCall("max", i64, false, cref(col, i64))})
	}
	dim := func() plan.Node {
		return scanWhere(dm, []int{0, 3}, call("lt", bln, cref(1, i64), lit(int64(20))))
	}
	cases := []struct {
		name  string
		scans int // scans of f in the shared run
		plan  func() plan.Node
	}{
		{"q15-shape", 1, func() plan.Node { // revenue rows whose sum is the maximum sum
			return plan.NewJoin(revenue(0), maxOf(revenue(0), 1), plan.InnerJoin,
				[]plan.Expr{cref(1, i64)}, []plan.Expr{cref(0, i64)}, nil)
		}},
		{"one-node-twice", 2, func() plan.Node { // one plan node: its stats print twice
			r := revenue(0)
			return plan.NewSetOp(r, r, plan.Union, true)
		}},
		{"filtered-join-and-union", 1, func() plan.Node { // the join's filter must not narrow the union's rows
			j := plan.NewJoin(revenue(0), dim(), plan.InnerJoin, []plan.Expr{cref(0, i64)}, []plan.Expr{cref(0, i64)}, nil)
			p := plan.NewProject(j, []plan.Expr{cref(0, i64), cref(1, i64), cref(2, i64)}, []string{"k", "s", "c"})
			return plan.NewSetOp(p, revenue(0), plan.Union, true)
		}},
		{"different-filters-not-shared", 2, func() plan.Node {
			return plan.NewSetOp(revenue(0), revenue(50), plan.Union, true)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			restore := build.SetSharedSubplans(false)
			want, _, err := runPlan(t, c.plan(), flexec.Env{Mem: mem, Parallelism: 1})
			restore()
			require.NoError(t, err)
			require.NotEmpty(t, want)
			for _, par := range []int{1, 4} {
				for _, batch := range []int{1, 7, 0} {
					got, _, err := runPlan(t, c.plan(), flexec.Env{Mem: mem, Parallelism: par, BatchSize: batch})
					require.NoError(t, err)
					exectest.RequireRows(t, want, got, false)
				}
				text, err := build.ExplainAnalyze(context.Background(), c.plan(), flexec.Env{Mem: mem, Parallelism: par})
				require.NoError(t, err)
				require.Equal(t, c.scans, strings.Count(text, "Scan: f "), text)
			}
		})
	}
}
