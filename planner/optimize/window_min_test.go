package optimize_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/plan"
)

// tpchCatalog holds the TPC-H tables q02 reads, with SF1 row counts.
func tpchCatalog() statsCatalog {
	i64 := func(n string) arrow.Field { return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64} }
	str := func(n string) arrow.Field { return arrow.Field{Name: n, Type: arrow.BinaryTypes.String} }
	dec := func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}}
	}
	tables := map[string][]arrow.Field{
		"part":     {i64("p_partkey"), str("p_name"), str("p_mfgr"), str("p_type"), i64("p_size")},
		"supplier": {i64("s_suppkey"), str("s_name"), str("s_address"), i64("s_nationkey"), str("s_phone"), dec("s_acctbal"), str("s_comment")},
		"partsupp": {i64("ps_partkey"), i64("ps_suppkey"), dec("ps_supplycost")},
		"nation":   {i64("n_nationkey"), str("n_name"), i64("n_regionkey")},
		"region":   {i64("r_regionkey"), str("r_name")},
	}
	cat := plantest.Standard()
	for name, fields := range tables {
		cat.Tables[name] = []plantest.Version{{Schema: arrow.NewSchema(fields, nil)}, {Schema: arrow.NewSchema(fields, nil)}}
	}
	return statsCatalog{Catalog: cat, rows: map[string]int64{
		"part": 200_000, "supplier": 10_000, "partsupp": 800_000, "nation": 25, "region": 5,
	}}
}

const q02Outer = `SELECT s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
FROM part, supplier, partsupp, nation, region
WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND p_size = 15 AND p_type LIKE '%BRASS'
  AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey AND r_name = 'EUROPE'
  AND ps_supplycost = (SELECT `

// q02 is TPC-H q02 with the subquery's select list, FROM list and WHERE clause given.
func q02(sel, from, where string) string {
	return q02Outer + sel + " FROM " + from + " WHERE " + where +
		") ORDER BY s_acctbal DESC, n_name, s_name, p_partkey LIMIT 100"
}

const (
	q02From  = "partsupp, supplier, nation, region"
	q02Where = "p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND s_nationkey = n_nationkey" +
		" AND n_regionkey = r_regionkey AND r_name = 'EUROPE'"
)

// countNodes counts the nodes of n's tree for which is holds.
func countNodes(n plan.Node, is func(plan.Node) bool) int {
	c := 0
	if is(n) {
		c++
	}
	for _, k := range n.Children() {
		c += countNodes(k, is)
	}
	return c
}

// TestWindowMin checks that q02's min subquery becomes a window over the outer join (part
// scanned once, no aggregate) and that near misses keep the subquery.
func TestWindowMin(t *testing.T) {
	cat := tpchCatalog()
	cases := []struct {
		name   string
		sql    string
		window bool
	}{
		{"q02", q02("min(ps_supplycost)", q02From, q02Where), true},
		{"max", q02("max(ps_supplycost)", q02From, q02Where), true},
		{"from order and equality sides", q02("min(ps_supplycost)", "region, nation, supplier, partsupp",
			"ps_partkey = p_partkey AND ps_suppkey = s_suppkey AND n_nationkey = s_nationkey"+
				" AND r_regionkey = n_regionkey AND 'EUROPE' = r_name"), true},
		{"sum", q02("sum(ps_supplycost)", q02From, q02Where), false},
		{"different condition", q02("min(ps_supplycost)", q02From, strings.Replace(q02Where, "'EUROPE'", "'ASIA'", 1)), false},
		{"missing condition", q02("min(ps_supplycost)", q02From, strings.Replace(q02Where, " AND r_name = 'EUROPE'", "", 1)), false},
		{"extra condition", q02("min(ps_supplycost)", q02From, q02Where+" AND s_acctbal > 0"), false},
		{"extra table", q02("min(ps_supplycost)", q02From+", part p2", q02Where+" AND p2.p_partkey = ps_partkey"), false},
		{"other column", q02("min(s_acctbal)", q02From, q02Where), false},
		{"non-equality correlation", q02("min(ps_supplycost)", q02From, strings.Replace(q02Where, "p_partkey = ps_partkey", "p_partkey < ps_partkey", 1)), false},
		{"correlation on another column", q02("min(ps_supplycost)", q02From, strings.Replace(q02Where, "p_partkey = ps_partkey", "p_size = ps_partkey", 1)), false},
		{"time travel", q02("min(ps_supplycost)", "partsupp AT (VERSION => 1), supplier, nation, region", q02Where), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := logicalIn(t, cat, c.sql)
			before := plan.Explain(n)
			out := optimize.Optimize(n)
			require.Equal(t, before, plan.Explain(n), "Optimize must not modify its input")
			require.Equal(t, plantest.SchemaString(n.Schema()), plantest.SchemaString(out.Schema()))
			windows := countNodes(out, func(n plan.Node) bool { _, ok := n.(*plan.Window); return ok })
			aggs := countNodes(out, func(n plan.Node) bool { _, ok := n.(*plan.Aggregate); return ok })
			parts := countNodes(out, func(n plan.Node) bool { s, ok := n.(*plan.Scan); return ok && s.Table.Name() == "part" })
			if c.window {
				require.Equal(t, []int{1, 0, 1}, []int{windows, aggs, parts}, plan.Explain(out))
				require.Contains(t, plan.Explain(out), "OVER (PARTITION BY p_partkey#", plan.Explain(out))
			} else {
				require.Equal(t, 0, windows, plan.Explain(out))
				require.NotZero(t, aggs, plan.Explain(out))
			}
		})
	}
}
