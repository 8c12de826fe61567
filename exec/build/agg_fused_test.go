package build_test

import (
	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/plan"
)

// Aggregates over filtered scans (the aggregate applies the scan's filter itself), end to
// end against DuckDB at several batch sizes and worker counts (TestEndToEnd).
func init() {
	queries = append(queries, fusedQueries...)
}

var fusedQueries = []query{
	{
		name: "fused-filter-high",
		sql: `SELECT b, count(*), sum(a), avg(c), min(a), max(c), count(DISTINCT a % 10),
			count(*) FILTER (WHERE a > 500) FROM t WHERE i >= 100 GROUP BY b`,
		plan: func(t catalog.Table) plan.Node {
			i, a, b, c := cref(0, i64), cref(1, i64), cref(2, str), cref(3, f64)
			filtered := aggCall("count", i64, false)
			filtered.Filter = call("gt", bln, a, lit(int64(500)))
			return plan.NewAggregate(scanWhere(t, []int{0, 1, 2, 3}, call("gte", bln, i, lit(int64(100)))),
				[]plan.Expr{b}, []string{"b"}, []plan.AggCall{
					aggCall("count", i64, false), aggCall("sum", i64, false, a), aggCall("avg", f64, false, c),
					aggCall("min", i64, false, a), aggCall("max", f64, false, c),
					aggCall("count", i64, true, call("modulus", i64, a, lit(int64(10)))), filtered,
				})
		},
	},
	{
		name: "fused-filter-two-conjuncts",
		sql:  "SELECT sum(a * 2), count(c), sum(c) FROM t WHERE c > 0 AND i < 900",
		plan: func(t catalog.Table) plan.Node {
			i, a, c := cref(0, i64), cref(1, i64), cref(3, f64)
			cond := call("and", bln, call("gt", bln, c, lit(0.0)), call("lt", bln, i, lit(int64(900))))
			return plan.NewAggregate(scanWhere(t, []int{0, 1, 2, 3}, cond), nil, nil, []plan.AggCall{
				aggCall("sum", i64, false, call("multiply", i64, a, lit(int64(2)))),
				aggCall("count", i64, false, c), aggCall("sum", f64, false, c),
			})
		},
	},
	{
		// a * 11530000000000000 overflows BIGINT exactly on the rows the filter rejects
		// (a ≥ 800, a fifth of the rows, spread over every batch).
		name: "fused-filter-error-on-rejected-rows",
		sql:  "SELECT b, count(a * 11530000000000000), sum(c) FROM t WHERE a < 800 GROUP BY b",
		plan: func(t catalog.Table) plan.Node {
			a, b, c := cref(1, i64), cref(2, str), cref(3, f64)
			big := call("multiply", i64, a, lit(int64(11530000000000000)))
			return plan.NewAggregate(scanWhere(t, []int{0, 1, 2, 3}, call("lt", bln, a, lit(int64(800)))),
				[]plan.Expr{b}, []string{"b"}, []plan.AggCall{aggCall("count", i64, false, big), aggCall("sum", f64, false, c)})
		},
	},
}
