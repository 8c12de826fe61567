package optimize_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/plan"
)

// TestWindowMinRegionWithProject: a region holding a Project (derived table, CTE, view)
// under a join key or filter must not panic the optimizer.
func TestWindowMinRegionWithProject(t *testing.T) {
	cat := tpchCatalog()
	cases := []struct{ name, sql string }{
		{"derived table outer", `SELECT p_partkey FROM part, supplier, (SELECT * FROM partsupp WHERE ps_suppkey <> 7) ps
WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND ps_supplycost = (SELECT min(ps_supplycost) FROM partsupp, supplier WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey)`},
		{"derived table both", `WITH pp AS (SELECT * FROM partsupp WHERE ps_suppkey <> 7) SELECT p_partkey FROM part, supplier, pp
WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND ps_supplycost = (SELECT min(ps_supplycost) FROM pp, supplier WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey)`},
		{"derived table subquery only", `SELECT p_partkey FROM part, partsupp, supplier
WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND ps_supplycost = (SELECT min(ps_supplycost) FROM supplier, (SELECT * FROM partsupp) x WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := logicalIn(t, cat, c.sql)
			var out plan.Node
			require.NotPanics(t, func() { out = optimize.Optimize(n) })
			require.NotNil(t, out)
		})
	}
}

// TestWindowMinFiresForTypes: the rule fires for string and decimal arguments (so the
// subquery/window_min_types.test records exercise the window path).
func TestWindowMinFiresForTypes(t *testing.T) {
	cat := tpchCatalog()
	for _, c := range []struct{ col, agg string }{{"s_name", "min"}, {"s_acctbal", "max"}, {"ps_supplycost", "max"}} {
		sql := `SELECT p_partkey FROM part, partsupp, supplier WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND p_size = 15 AND ` +
			c.col + ` = (SELECT ` + c.agg + `(` + c.col + `) FROM partsupp, supplier WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey)`
		out := optimize.Optimize(logicalIn(t, cat, sql))
		windows := countNodes(out, func(n plan.Node) bool { _, ok := n.(*plan.Window); return ok })
		require.Equal(t, 1, windows, plan.Explain(out))
	}
}
