package bind_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/parse"
	"github.com/flightd/flightd/planner/plan"
)

// indexCatalog is plantest's standard catalog with an Indexer whose TablesWithIndex
// answers from owners; the other methods are never called by the binder.
type indexCatalog struct {
	*plantest.Catalog
	owners map[string][]string
}

func (c indexCatalog) CreateIndex(context.Context, string, catalog.IndexSpec) (catalog.IndexChange, error) {
	panic("not called by the binder")
}

func (c indexCatalog) DropIndex(context.Context, string, string) (catalog.IndexChange, error) {
	panic("not called by the binder")
}

func (c indexCatalog) OptimizeIndex(context.Context, string, string, memory.Allocator) (catalog.IndexChange, error) {
	panic("not called by the binder")
}

func (c indexCatalog) TablesWithIndex(_ context.Context, name string) ([]string, error) {
	return c.owners[name], nil
}

func TestBindIndexDDL(t *testing.T) {
	cat := indexCatalog{plantest.Standard(), map[string][]string{"one": {"t"}, "two": {"t", "u"}}}
	tests := []struct {
		sql  string
		want *plan.IndexDDL // Catalog and Source are not compared
		err  string
	}{
		{sql: "CREATE INDEX i ON T (ID)", want: &plan.IndexDDL{Kind: plan.CreateIndex, Table: "t", Name: "i", Column: "id", Type: "BTREE"}},
		{sql: "CREATE INDEX IF NOT EXISTS i ON main.t (name) USING label_list",
			want: &plan.IndexDDL{Kind: plan.CreateIndex, Table: "t", Name: "i", Column: "name", Type: "LABEL_LIST", IfNotExists: true}},
		{sql: "CREATE INDEX i ON t USING ZoneMap (score)", want: &plan.IndexDDL{Kind: plan.CreateIndex, Table: "t", Name: "i", Column: "score", Type: "ZONEMAP"}},
		{sql: "CREATE INDEX i ON t (nope)", err: `does not have a column named "nope"`},
		{sql: "CREATE INDEX i ON t (id) USING HNSW", err: "index type HNSW"},
		{sql: "CREATE UNIQUE INDEX i ON t (id)", err: "UNIQUE indexes"},
		{sql: "CREATE INDEX i ON t (id, name)", err: "several columns"},
		{sql: "CREATE INDEX i ON nosuch (id)", err: "nosuch"},
		{sql: "DROP INDEX one", want: &plan.IndexDDL{Kind: plan.DropIndex, Table: "t", Name: "one"}},
		{sql: "DROP INDEX two ON u", want: &plan.IndexDDL{Kind: plan.DropIndex, Table: "u", Name: "two"}},
		{sql: "DROP INDEX two", err: `index name "two" is ambiguous: tables t, u have an index of that name`},
		{sql: "DROP INDEX none", err: `Index with name "none" does not exist!`},
		{sql: "DROP INDEX IF EXISTS none", want: &plan.IndexDDL{Kind: plan.DropIndex, Name: "none", IfExists: true}},
		{sql: "ALTER INDEX one OPTIMIZE", want: &plan.IndexDDL{Kind: plan.OptimizeIndex, Table: "t", Name: "one"}},
		{sql: "ALTER INDEX none OPTIMIZE", err: `Index with name "none" does not exist!`},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			stmt, err := parse.Parse(tc.sql)
			require.NoError(t, err)
			require.True(t, bind.IsWrite(stmt))
			n, _, err := bind.BindWrite(context.Background(), cat, stmt, nil)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			got, ok := n.(*plan.IndexDDL)
			require.True(t, ok, "%T", n)
			require.Equal(t, plan.CountSchema, got.Schema())
			src, ok := plan.WriteSource(got)
			require.True(t, ok)
			require.Zero(t, src.Schema().NumFields())
			got.Catalog, got.Source = nil, nil
			require.Equal(t, tc.want, got)
		})
	}
}

// A catalog without catalog.Indexer cannot run index statements.
func TestBindIndexDDLReadOnly(t *testing.T) {
	for _, sql := range []string{"CREATE INDEX i ON t (id)", "DROP INDEX i ON t", "ALTER INDEX i OPTIMIZE"} {
		stmt, err := parse.Parse(sql)
		require.NoError(t, err)
		_, _, err = bind.BindWrite(context.Background(), plantest.Standard(), stmt, nil)
		require.ErrorContains(t, err, "the catalog cannot build indexes", sql)
	}
}
