package optimize_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/parse"
	"github.com/flightd/flightd/planner/plan"
	"github.com/flightd/flightd/planner/substrait"
)

// indexedTable is a plantest table with scalar indexes on id (0), name (1), qty (3) and
// ts (5); it answers every expression with sel and records what it was asked.
type indexedTable struct {
	catalog.Table
	sel *catalog.RowSelection

	mu    sync.Mutex
	asked []string
}

func (t *indexedTable) Indexes(context.Context) ([]catalog.IndexInfo, error) {
	return []catalog.IndexInfo{
		{Name: "id_idx", Column: 0, Type: "BTree"}, {Name: "name_idx", Column: 1, Type: "Bitmap"},
		{Name: "qty_idx", Column: 3, Type: "BTree"}, {Name: "ts_idx", Column: 5, Type: "BTree"},
	}, nil
}

func (t *indexedTable) SelectRows(_ context.Context, e *catalog.IndexExpr) (*catalog.RowSelection, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.asked = append(t.asked, e.String())
	return t.sel, nil
}

// indexedCatalog serves plantest.Standard with table t indexed.
type indexedCatalog struct {
	*plantest.Catalog
	t *indexedTable
}

func (c *indexedCatalog) LoadTable(ctx context.Context, name string, at catalog.VersionRef) (catalog.Table, error) {
	tbl, err := c.Catalog.LoadTable(ctx, name, at)
	if err != nil || name != "t" {
		return tbl, err
	}
	c.t.Table = tbl
	return c.t, nil
}

func newIndexedCatalog(sel *catalog.RowSelection) *indexedCatalog {
	return &indexedCatalog{Catalog: plantest.Standard(), t: &indexedTable{sel: sel}}
}

// indexPlan plans sql over cat the way queries run and optimizes it.
func indexPlan(t *testing.T, cat catalog.Catalog, sql string) (plan.Node, plan.Node) {
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
	return n, optimize.OptimizeContext(ctx, n)
}

func scanOf(n plan.Node) *plan.Scan {
	if s, ok := n.(*plan.Scan); ok {
		return s
	}
	for _, c := range n.Children() {
		if s := scanOf(c); s != nil {
			return s
		}
	}
	return nil
}

var smallSel = &catalog.RowSelection{SelectedRows: 10, TotalRows: 1_000_000, SelectedFragments: 1,
	TotalFragments: 4, TableBytes: 1 << 20, Used: []catalog.IndexInfo{{Name: "id_idx", Column: 0, Type: "BTree"}}}

// The rule extracts the indexable conjuncts, with operands flipped, IN folded, NOT only
// over fully indexable operands, and widening casts of the column looked through.
func TestIndexRuleExtracts(t *testing.T) {
	cases := []struct {
		where string
		want  string // the expression asked; "" when the rule asks nothing
	}{
		{"id = 5", `#0 = int64:"5"`},
		{"5 = id", `#0 = int64:"5"`},
		{"5 > id", `#0 < int64:"5"`},
		{"id >= 7", `#0 >= int64:"7"`},
		{"id IN (1, 2, 3)", `#0 IN int64:"1", int64:"2", int64:"3"`},
		{"id = 1 OR id = 2 OR qty = 3", `or(#0 IN int64:"1", int64:"2", #3 = int32:"3")`},
		{"id BETWEEN 1 AND 3", `and(#0 >= int64:"1", #0 <= int64:"3")`},
		{"id = 1 AND score > 2", `#0 = int64:"1"`},
		{"id = 1 AND name = 'x'", `and(#0 = int64:"1", #1 = utf8:"x")`},
		{"NOT (id = 1)", `not(#0 = int64:"1")`},
		{"name IS NULL", `#1 IS NULL`},
		{"name IS NOT NULL AND qty < 10", `and(#1 IS NOT NULL, #3 < int32:"10")`},
		{"qty > 3000000000", `#3 > int64:"3000000000"`},
		{"id = 1 OR score > 2", ""},
		{"NOT (id = 1 AND score > 2)", ""},
		{"id + 1 = 5", ""},
		{"score = 1", ""},
		{"qty > 2.5", ""}, // an int column cast to double: not exact
		{"CAST(id AS VARCHAR) = '5'", ""},
	}
	for _, c := range cases {
		t.Run(c.where, func(t *testing.T) {
			cat := newIndexedCatalog(smallSel)
			in, out := indexPlan(t, cat, "SELECT * FROM t WHERE "+c.where)
			if c.want == "" {
				require.Empty(t, cat.t.asked)
				require.Nil(t, scanOf(out).Index)
				return
			}
			require.Equal(t, []string{c.want}, cat.t.asked)
			s := scanOf(out)
			require.NotNil(t, s.Index)
			require.Equal(t, c.want, s.Index.Expr.String())
			require.Nil(t, scanOf(in).Index, "Optimize must not modify its input")
			require.NotNil(t, s.Filter, "the full filter stays")
		})
	}
}

// The selectivity decision (DuckDB's thresholds for row-level selections, half the table
// in long runs for coarse ones), and EXPLAIN's rendering of it.
func TestIndexRuleDecides(t *testing.T) {
	cases := []struct {
		name string
		sel  *catalog.RowSelection
		use  bool
	}{
		{"no answer", nil, false},
		{"point", smallSel, true},
		{"2048 rows", &catalog.RowSelection{SelectedRows: 2048, TotalRows: 100_000, Ranges: 2048}, true},
		{"0.1%", &catalog.RowSelection{SelectedRows: 10_000, TotalRows: 10_000_000, Ranges: 10_000}, true},
		{"scattered 5%", &catalog.RowSelection{SelectedRows: 5000, TotalRows: 100_000, Ranges: 5000}, false},
		{"zones 40%", &catalog.RowSelection{SelectedRows: 40_000, TotalRows: 100_000, Ranges: 5}, true},
		{"zones 60%", &catalog.RowSelection{SelectedRows: 60_000, TotalRows: 100_000, Ranges: 5}, false},
		{"everything", &catalog.RowSelection{SelectedRows: 100, TotalRows: 100}, false},
		{"empty table", &catalog.RowSelection{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cat := newIndexedCatalog(c.sel)
			_, out := indexPlan(t, cat, "SELECT id FROM t WHERE id < 100")
			require.Equal(t, []string{`#0 < int64:"100"`}, cat.t.asked)
			require.Equal(t, c.use, scanOf(out).Index != nil)
		})
	}
	cat := newIndexedCatalog(smallSel)
	_, out := indexPlan(t, cat, "SELECT id FROM t WHERE id = 3")
	require.Contains(t, plan.Explain(out), "filter=equal(id#0, 3) index: id_idx (BTree) on id, fragments 1 of 4, rows 10 of 1000000, table 1.0 MiB")
}

// The index filter survives the Substrait round trip of the optimized plan.
func TestIndexRuleSubstraitRoundTrip(t *testing.T) {
	ctx := context.Background()
	cat := newIndexedCatalog(smallSel)
	_, out := indexPlan(t, cat, "SELECT id, name FROM t WHERE (id IN (1, 2) OR NOT (name IS NULL)) AND ts < TIMESTAMP '2026-01-02 03:04:05' AND qty = 3")
	s := scanOf(out)
	require.NotNil(t, s.Index)
	b, err := substrait.Marshal(out)
	require.NoError(t, err)
	back, err := substrait.Unmarshal(ctx, cat, b)
	require.NoError(t, err)
	got := scanOf(back)
	require.NotNil(t, got.Index)
	require.Equal(t, s.Index.Expr.String(), got.Index.Expr.String())
	require.Equal(t, s.Index.Explain, got.Index.Explain)
	require.Equal(t, plan.Explain(out), plan.Explain(back))
}
