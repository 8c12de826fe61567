package bind_test

import (
	"context"
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
		{"SELECT md5(name) FROM t", dberr.NotImplemented, 1, 8, nil},
		{"SELECT lower(id) FROM t", dberr.Binder, 1, 8, nil},
		{"SELECT date_part(name, day) FROM t", dberr.NotImplemented, 1, 8, nil},
		{"SELECT histogram(qty) FROM t", dberr.NotImplemented, 1, 8, nil},
		{"SELECT string_agg(name, name) FROM t", dberr.NotImplemented, 1, 8, nil},
		{"SELECT lower(name) FILTER (WHERE true) FROM t", dberr.Binder, 1, 8, nil},
		{"SELECT sum(qty) FILTER (WHERE qty) FROM t", dberr.Binder, 1, 31, nil},
		{"SELECT id FROM t WHERE id = ?", dberr.NotImplemented, 1, 29, nil},
		{"SELECT id FROM t, u", dberr.Binder, 1, 8, nil},
		{"SELECT x.id FROM t JOIN u ON t.id = u.t_id", dberr.Binder, 1, 8, nil},
		{"SELECT * FROM t JOIN t ON true", dberr.Binder, 1, 22, nil},
		{"SELECT * FROM t JOIN u USING (nope)", dberr.Binder, 1, 17, nil},
		{"SELECT * FROM t JOIN u ON t.name", dberr.Binder, 1, 27, nil},
		{"SELECT * FROM (SELECT 1, 2) s(a, b, c)", dberr.Binder, 1, 15, nil},
		{"SELECT 1 UNION SELECT 1, 2", dberr.Binder, 1, 1, nil},
		{"SELECT day FROM t UNION SELECT true", dberr.Binder, 1, 1, nil},
		{"SELECT id FROM t WHERE id IN (SELECT id, name FROM u)", dberr.Binder, 1, 24, nil},
		{"SELECT (SELECT id, name FROM u) FROM t", dberr.Binder, 1, 8, nil},
		{"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n, n FROM r) SELECT * FROM r", dberr.Binder, 1, 25, nil},
		{"SELECT id FROM t WHERE name GLOB name", dberr.NotImplemented, 1, 24, nil},
		{"SELECT id FROM t WHERE name LIKE name ESCAPE '#'", dberr.NotImplemented, 1, 24, nil},
		{"SELECT grouping(id) FROM t GROUP BY ROLLUP (qty)", dberr.Binder, 1, 17, nil},
		{"WITH a AS (SELECT 1), a AS (SELECT 2) SELECT * FROM a", dberr.Parser, 1, 23, nil},
		{"SELECT * FROM missing_cte", dberr.Catalog, 1, 15, catalog.ErrNoSuchTable},
		{"VALUES (1), (true)", dberr.Binder, 1, 14, nil},
		{"INSERT INTO t VALUES (1)", dberr.NotImplemented, 1, 1, nil},
		{"SELECT qty FROM t GROUP BY CUBE (id, name, score, qty, day, ts, id)", dberr.NotImplemented, 1, 1, nil},
		{"SELECT id FROM t WHERE row_number() OVER () > 1", dberr.Binder, 1, 24, nil},
		{"SELECT rank() OVER nope FROM t", dberr.Binder, 1, 8, nil},
		{"SELECT lower(name) OVER () FROM t", dberr.Catalog, 1, 8, nil},
		{"SELECT sum(qty) OVER (ROWS BETWEEN -1 PRECEDING AND CURRENT ROW) FROM t", dberr.Binder, 1, 8, nil},
		{"SELECT sum(row_number() OVER ()) OVER () FROM t", dberr.Binder, 1, 12, nil},
		{"\n  DELETE FROM t", dberr.NotImplemented, 2, 3, nil},
		{"SELECT * EXCLUDE (nope) FROM t", dberr.Binder, 1, 8, nil},
		{"SELECT * REPLACE (1 AS nope) FROM t", dberr.Binder, 1, 8, nil},
		{"SELECT INTERVAL '1 fortnight'", dberr.Conversion, 1, 8, nil},
		{"SELECT CAST(name AS INTERVAL) FROM t", dberr.NotImplemented, 1, 8, nil},
		{"SELECT day * 2 FROM t", dberr.Binder, 1, 8, nil},
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
			require.ErrorAs(t, err, &e, "want *dberr.Error, got %T: %v", err, err)
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
