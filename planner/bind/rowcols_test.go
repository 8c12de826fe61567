package bind_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/parse"
	"github.com/flightd/flightd/planner/plan"
)

// rowCatalog is the standard test catalog plus r, whose real column _rowid (int32) hides
// the hidden one.
func rowCatalog() *plantest.Catalog {
	c := plantest.Standard()
	c.Tables["r"] = []plantest.Version{{Schema: arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "_rowid", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)}}
	return c
}

// TestBindRowColumns checks the hidden _rowid/_rowaddr columns: named (qualified or not, any
// case) they resolve to the scan's extra uint64 columns; * leaves them out; a real column of
// the same name wins; two tables' hidden columns are ambiguous unqualified; derived tables
// do not carry them; statements that do not name them bind exactly as before.
func TestBindRowColumns(t *testing.T) {
	tests := []struct {
		sql, plan, schema, err string
	}{{
		sql:    "SELECT * FROM u",
		plan:   "Project: id := id#0, t_id := t_id#1, name := name#2, amount := amount#3\n  Scan: u version=1 columns=[id#0, t_id#1, name#2, amount#3]\n",
		schema: "schema: id int64, t_id int64 null, name utf8 null, amount float64 null",
	}, {
		sql:    "SELECT _rowid, _rowaddr, * FROM u",
		plan:   "Project: _rowid := _rowid#4, _rowaddr := _rowaddr#5, id := id#0, t_id := t_id#1, name := name#2, amount := amount#3\n  Scan: u version=1 columns=[id#0, t_id#1, name#2, amount#3, _rowid, _rowaddr]\n",
		schema: "schema: _rowid uint64, _rowaddr uint64, id int64, t_id int64 null, name utf8 null, amount float64 null",
	}, {
		sql:    "SELECT x._ROWADDR AS a FROM u AS x WHERE _rowaddr > 5",
		schema: "schema: a uint64",
	}, {
		sql:    "SELECT u.*, _rowid FROM u",
		schema: "schema: id int64, t_id int64 null, name utf8 null, amount float64 null, _rowid uint64",
	}, {
		sql:    "SELECT _rowid, _rowaddr FROM r",
		plan:   "Project: _rowid := _rowid#1, _rowaddr := _rowaddr#2\n  Scan: r version=1 columns=[k#0, _rowid#1, _rowaddr]\n",
		schema: "schema: _rowid int32 null, _rowaddr uint64",
	}, {
		sql:    "SELECT _rowid FROM r, u",
		schema: "schema: _rowid int32 null",
	}, {
		sql: "SELECT _rowid FROM t, u",
		err: `Ambiguous reference to column name "_rowid"`,
	}, {
		sql:    "SELECT t._rowid, u._rowid FROM t, u",
		schema: "schema: _rowid uint64, _rowid uint64",
	}, {
		sql:    "SELECT *, t._rowid FROM t NATURAL JOIN u",
		schema: "schema: id int64, name utf8 null, score float64 null, qty int32 null, day date32 null, ts timestamp[us] null, t_id int64 null, amount float64 null, _rowid uint64",
	}, {
		sql: "SELECT _rowid FROM (SELECT * FROM u) s",
		err: `Referenced column "_rowid" not found`,
	}, {
		sql:    "SELECT _rowid FROM (SELECT _rowid, id FROM u) s",
		schema: "schema: _rowid uint64",
	}, {
		sql:  "SELECT id FROM u",
		plan: "Project: id := id#0\n  Scan: u version=1 columns=[id#0, t_id#1, name#2, amount#3]\n",
	}}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			stmt, err := parse.Parse(tc.sql)
			require.NoError(t, err)
			n, err := bind.Bind(context.Background(), rowCatalog(), stmt)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			if tc.plan != "" {
				require.Equal(t, tc.plan, plan.Explain(n))
			}
			if tc.schema != "" {
				require.Equal(t, tc.schema, plantest.SchemaString(n.Schema()))
			}
		})
	}
}

// TestBindRowColumnsAnywhere: the hidden columns resolve in every clause and nested query
// (the binder's check of the statement text must see every part of the statement), and
// with parameters.
func TestBindRowColumnsAnywhere(t *testing.T) {
	for _, sql := range []string{
		"SELECT id FROM u QUALIFY row_number() OVER (ORDER BY _rowid) = 1",
		"SELECT id, sum(amount) OVER w FROM u WINDOW w AS (PARTITION BY _rowaddr)",
		"SELECT id FROM u ORDER BY _rowid DESC",
		"SELECT _rowaddr % 2, count(*) FROM u GROUP BY _rowaddr % 2 HAVING max(_rowid) > 1",
		"SELECT u.id FROM u JOIN t ON u._rowid = t._rowaddr",
		"SELECT id FROM u WHERE id IN (SELECT _rowid FROM t)",
		"SELECT id FROM u WHERE EXISTS (SELECT 1 FROM t WHERE t._rowid = u._rowid)",
		"SELECT CASE WHEN _rowid > 1 THEN CAST(_rowaddr AS VARCHAR) END FROM u",
		"SELECT * FROM u WHERE _rowid BETWEEN 1 AND 3 AND _rowaddr IN (1, 2)",
		"SELECT DISTINCT ON (_rowid) id FROM u",
		"WITH c AS (SELECT _rowid AS r FROM u) SELECT r FROM c",
		"SELECT id FROM u UNION ALL SELECT _rowid FROM t",
		"SELECT (SELECT max(_rowid) FROM t) FROM u",
		"SELECT coalesce(_rowid, 0) FROM u",
		"SELECT * EXCLUDE (id), _rowid FROM u",
		`SELECT "_rowid" FROM u`,
		"SELECT id FROM t AT (VERSION => 1) WHERE _rowid = 1",
	} {
		t.Run(sql, func(t *testing.T) {
			stmt, err := parse.Parse(sql)
			require.NoError(t, err)
			_, err = bind.Bind(context.Background(), rowCatalog(), stmt)
			require.NoError(t, err)
		})
	}
	stmt, err := parse.Parse("SELECT _rowaddr FROM u WHERE _rowid = ?")
	require.NoError(t, err)
	n, types, err := bind.BindParams(context.Background(), rowCatalog(), stmt, nil)
	require.NoError(t, err)
	require.Len(t, types, 1)
	require.Equal(t, "schema: _rowaddr uint64", plantest.SchemaString(n.Schema()))
}
