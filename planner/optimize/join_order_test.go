package optimize_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/parse"
	"github.com/flightd/flightd/planner/plan"
	"github.com/flightd/flightd/planner/substrait"
)

// statsCatalog is a plantest catalog whose tables report row counts.
type statsCatalog struct {
	*plantest.Catalog
	rows map[string]int64
}

// statsTable overrides the fake table's Stats.
type statsTable struct {
	catalog.Table
	rows int64
}

func (t statsTable) Stats() catalog.Stats { return catalog.Stats{Rows: t.rows, Fragments: 1} }

func (c statsCatalog) LoadTable(ctx context.Context, name string, at catalog.VersionRef) (catalog.Table, error) {
	t, err := c.Catalog.LoadTable(ctx, name, at)
	if err != nil {
		return nil, err
	}
	return statsTable{Table: t, rows: c.rows[name]}, nil
}

// starCatalog is a small star schema with TPC-H-like sizes; "nostats" reports an unknown
// row count and "t"/"u" (plantest's) zero rows; "big" is a large dimension (TPC-H's
// orders to sales' lineitem).
func starCatalog() statsCatalog {
	i64 := func(n string) arrow.Field { return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64} }
	str := func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	f64 := func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Float64, Nullable: true}
	}
	tables := map[string][]arrow.Field{
		"sales":   {i64("id"), i64("cust_id"), i64("prod_id"), i64("store_id"), f64("amount")},
		"cust":    {i64("id"), i64("nation_id"), str("name")},
		"prod":    {i64("id"), str("kind"), f64("price")},
		"nation":  {i64("id"), str("name")},
		"store":   {i64("id"), i64("nation_id"), str("city")},
		"nostats": {i64("id"), i64("cust_id")},
		"big":     {i64("id"), str("kind")},
	}
	cat := plantest.Standard()
	for name, fields := range tables {
		cat.Tables[name] = []plantest.Version{{Schema: arrow.NewSchema(fields, nil)}}
	}
	return statsCatalog{Catalog: cat, rows: map[string]int64{
		"sales": 6_000_000, "cust": 150_000, "prod": 200_000, "nation": 25, "store": 100, "nostats": -1,
		"big": 1_500_000,
	}}
}

func logicalIn(t *testing.T, cat catalog.Catalog, sql string) plan.Node {
	t.Helper()
	ctx := context.Background()
	stmt, err := parse.Parse(sql)
	require.NoError(t, err)
	n, err := bind.Bind(ctx, cat, stmt)
	require.NoError(t, err)
	b, err := substrait.Marshal(n)
	require.NoError(t, err)
	n, err = substrait.Unmarshal(ctx, cat, b)
	require.NoError(t, err)
	return n
}

// TestJoinOrder runs testdata/rules/join_order over starCatalog: "opt" prints the optimized
// plan, "noop" also checks that the joins keep their FROM order. Every case checks that the
// optimizer keeps the result schema and leaves its input alone.
func TestJoinOrder(t *testing.T) {
	cat := starCatalog()
	plantest.RunFile(t, "testdata/rules/join_order", func(t *testing.T, c plantest.Case) string {
		n := logicalIn(t, cat, c.Input)
		before := plan.Explain(n)
		out := optimize.Optimize(n)
		require.Equal(t, before, plan.Explain(n), "Optimize must not modify its input")
		require.Equal(t, plantest.SchemaString(n.Schema()), plantest.SchemaString(out.Schema()))
		if c.Command == "noop" {
			require.Equal(t, scanOrder(n), scanOrder(out))
		}
		return plan.Explain(out)
	})
}

// scanOrder lists the scanned tables left to right.
func scanOrder(n plan.Node) string {
	var names []string
	var walk func(plan.Node)
	walk = func(n plan.Node) {
		if s, ok := n.(*plan.Scan); ok {
			names = append(names, s.Table.Name())
		}
		for _, k := range n.Children() {
			walk(k)
		}
	}
	walk(n)
	return strings.Join(names, ",")
}

// TestJoinOrderGreedy checks a chain of more relations than the exhaustive search takes:
// every join still has keys (no cross product), the big table is probed, not built, and
// the schema is kept.
func TestJoinOrderGreedy(t *testing.T) {
	cat := starCatalog()
	var from, where []string
	from = append(from, "sales s")
	for i := range 11 {
		from = append(from, fmt.Sprintf("cust c%d", i))
		where = append(where, fmt.Sprintf("c%d.id = s.cust_id", i))
	}
	where = append(where, "c3.name = 'x'")
	sql := "SELECT s.amount FROM " + strings.Join(from, ", ") + " WHERE " + strings.Join(where, " AND ")
	out := optimize.Optimize(logicalIn(t, cat, sql))
	joins := 0
	var walk func(plan.Node)
	walk = func(n plan.Node) {
		if j, ok := n.(*plan.Join); ok {
			joins++
			require.Equal(t, plan.InnerJoin, j.Type)
			require.NotEmpty(t, j.LeftKeys, "join without keys:\n%s", plan.Explain(out))
			require.NotEqual(t, "sales", scanOrder(j.Right), "sales built:\n%s", plan.Explain(out))
		}
		for _, k := range n.Children() {
			walk(k)
		}
	}
	walk(out)
	require.Equal(t, 11, joins)
	// The filtered customer table is joined first: it shrinks the probe side most.
	require.True(t, strings.HasPrefix(scanOrder(out), "sales,cust"), plan.Explain(out))
	deepest := out
	for len(deepest.Children()) > 0 && deepest.Children()[0].Children() != nil {
		deepest = deepest.Children()[0]
	}
	require.Contains(t, plan.Explain(deepest), "filter=equal(name#1, 'x')", plan.Explain(out))
}
