package bind_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/parse"
	"github.com/flightd/flightd/planner/plan"
)

func bindSQL(t *testing.T, sql string) (plan.Node, error) {
	t.Helper()
	stmt, err := parse.Parse(sql)
	require.NoError(t, err)
	return bind.Bind(context.Background(), plantest.Standard(), stmt)
}

// TestBind checks the bound (unoptimized) plans in testdata/bind: the canonical EXPLAIN
// text and the result schema, or the error. Rewrite with go test -rewrite.
func TestBind(t *testing.T) {
	plantest.RunFile(t, "testdata/bind", func(t *testing.T, c plantest.Case) string {
		n, err := bindSQL(t, c.Input)
		if err != nil {
			return "error: " + err.Error()
		}
		return plan.Explain(n) + plantest.SchemaString(n.Schema())
	})
}

func TestBindErrorKinds(t *testing.T) {
	tests := []struct {
		sql          string
		kind         dberr.Kind
		line, column int
		is           error
	}{
		{"SELECT nope FROM t", dberr.Binder, 1, 8, nil},
		{"SELECT id FROM\n  missing", dberr.Catalog, 2, 3, catalog.ErrNoSuchTable},
		{"SELECT id FROM t AT (VERSION => 9)", dberr.Catalog, 1, 18, catalog.ErrNoSuchVersion},
		{"SELECT id FROM t AT (VERSION => 'nope')", dberr.Catalog, 1, 18, catalog.ErrNoSuchVersion},
		{"SELECT id FROM t AT (TIMESTAMP => TIMESTAMP '2025-01-01 00:00:00')", dberr.Catalog, 1, 18, catalog.ErrNoSuchVersion},
		{"SELECT id FROM t WHERE count(*) > 1", dberr.Binder, 1, 24, nil},
		{"SELECT id, count(*) FROM t", dberr.Binder, 1, 8, nil},
		{"SELECT lower(name) FROM t", dberr.NotImplemented, 1, 8, nil},
		{"SELECT id FROM t WHERE name ILIKE 'a'", dberr.NotImplemented, 1, 24, nil},
		{"SELECT id FROM t WHERE id = ?", dberr.NotImplemented, 1, 29, nil},
		{"SELECT 1", dberr.NotImplemented, 1, 1, nil},
		{"SELECT CAST(name AS INTERVAL) FROM t", dberr.NotImplemented, 1, 8, nil},
		{"SELECT day + 1 FROM t", dberr.NotImplemented, 1, 8, nil},
		{"SELECT id FROM t WHERE day = '2020-13-45'", dberr.Conversion, 1, 24, nil},
		{"SELECT id FROM t WHERE qty = 'abc'", dberr.Conversion, 1, 24, nil},
		{"SELECT id FROM t LIMIT -1", dberr.Binder, 1, 24, nil},
		{"SELECT id FROM t ORDER BY 3", dberr.Binder, 1, 27, nil},
		{"SELECT foo(id) FROM t", dberr.Catalog, 1, 8, nil},
		{"SELECT sum(count(*)) FROM t", dberr.Binder, 1, 12, nil},
		{"SELECT id FROM db.t", dberr.Catalog, 1, 16, catalog.ErrNoSuchTable},
		{"SELECT id FROM other.main.t", dberr.Catalog, 1, 16, catalog.ErrNoSuchTable},
		{"SELECT id FROM a.b.c.t", dberr.Parser, 1, 16, nil},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := bindSQL(t, tc.sql)
			require.Error(t, err)
			var e *dberr.Error
			require.True(t, errors.As(err, &e), "want *dberr.Error, got %T: %v", err, err)
			require.Equal(t, tc.kind, e.Kind, err.Error())
			require.Equal(t, tc.line, e.Line, err.Error())
			require.Equal(t, tc.column, e.Column, err.Error())
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
		})
	}
}

func TestBindCaseInsensitiveTable(t *testing.T) {
	n, err := bindSQL(t, "SELECT ID FROM T")
	require.NoError(t, err)
	require.Equal(t, "id", n.Schema().Field(0).Name, "DuckDB names an unaliased column by the column, not by the reference")
}
