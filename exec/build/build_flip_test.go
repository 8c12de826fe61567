package build_test

import (
	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/plan"
)

// Joins that build on their small left input and stream their right input through the
// workers of a parallel pipeline (ops.NewFlippedHashBuild), end to end against DuckDB at
// parallelism 1, 3 and 4 (TestEndToEnd). The semi and anti joins of joinQueries flip too.
func init() {
	queries = append(queries, flipQueries...)
}

// smallLeft is t filtered to about 3% of its rows by the estimate (i < 60 AND b = 'g1':
// 1000 · 1/3 · 1/10), so that a left join with all of t flips; cols start with i and hold
// b at position b.
func smallLeft(t catalog.Table, cols []int, b int) *plan.Scan {
	return scanWhere(t, cols, call("and", bln, call("lt", bln, cref(0, i64), lit(int64(60))),
		call("equal", bln, cref(b, str), lit("g1"))))
}

// flipQueries: a flipped left join under a parallel aggregate (TPC-H q13's form, with a
// residual condition on the right side), a flipped left join under a Gather with several
// matches per left row, and a flipped anti join whose condition reads both sides (q21).
var flipQueries = []query{
	{
		name: "flipped-left-join-count",
		sql: `SELECT t1.i, count(t2.i), sum(t2.c) FROM (SELECT i, a, b FROM t WHERE i < 60 AND b = 'g1') t1
			LEFT JOIN t t2 ON t1.i = t2.a % 60 AND t2.c > 0 GROUP BY t1.i`,
		plan: func(t catalog.Table) plan.Node {
			r := plan.NewScan(t, []int{0, 1, 3})
			j := plan.NewJoin(smallLeft(t, []int{0, 1, 2}, 2), r, plan.LeftJoin, []plan.Expr{cref(0, i64)},
				[]plan.Expr{call("modulus", i64, cref(1, i64), lit(int64(60)))}, call("gt", bln, cref(5, f64), lit(0.0)))
			return plan.NewAggregate(j, []plan.Expr{cref(0, i64)}, []string{"i"},
				[]plan.AggCall{aggCall("count", i64, false, cref(3, i64)), aggCall("sum", f64, false, cref(5, f64))})
		},
	},
	{
		name: "flipped-left-join-rows",
		sql: `SELECT t1.i, t1.b, t2.i, t2.c FROM (SELECT i, b FROM t WHERE i < 60 AND b = 'g1') t1
			LEFT JOIN t t2 ON t1.i = t2.i % 50`,
		plan: func(t catalog.Table) plan.Node {
			j := plan.NewJoin(smallLeft(t, []int{0, 2}, 1), plan.NewScan(t, []int{0, 3}), plan.LeftJoin,
				[]plan.Expr{cref(0, i64)}, []plan.Expr{call("modulus", i64, cref(0, i64), lit(int64(50)))}, nil)
			return plan.NewProject(j, []plan.Expr{cref(0, i64), cref(1, str), cref(2, i64), cref(3, f64)},
				[]string{"i", "b", "i2", "c"})
		},
	},
	{
		name: "flipped-anti-join-residual",
		sql:  `SELECT i, b FROM t t1 WHERE i < 300 AND NOT EXISTS (SELECT 1 FROM t t2 WHERE t2.a % 300 = t1.i AND t2.b <> t1.b)`,
		plan: func(t catalog.Table) plan.Node {
			l := scanWhere(t, []int{0, 2}, call("lt", bln, cref(0, i64), lit(int64(300))))
			return plan.NewJoin(l, plan.NewScan(t, []int{1, 2}), plan.AntiJoin,
				[]plan.Expr{cref(0, i64)}, []plan.Expr{call("modulus", i64, cref(0, i64), lit(int64(300)))},
				call("not_equal", bln, cref(3, str), cref(1, str)))
		},
	},
}
