package bind_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/parse"
	"github.com/flightd/flightd/planner/plan"
)

// writable is plantest's catalog with the write capabilities (which binding only checks
// for; nothing is written).
type writable struct{ *plantest.Catalog }

func (writable) CreateTable(context.Context, string, *arrow.Schema, []arrow.RecordBatch, catalog.CreateMode) (uint64, error) {
	return 0, nil
}
func (writable) Append(context.Context, string, []arrow.RecordBatch) (uint64, error) { return 0, nil }
func (writable) DeleteRows(context.Context, string, uint64, []uint64) (uint64, error) {
	return 0, nil
}
func (writable) UpdateRows(context.Context, string, uint64, []uint64, []arrow.RecordBatch) (uint64, error) {
	return 0, nil
}

// writableCatalog is plantest.Standard plus table "r", which has a real _rowaddr column.
func writableCatalog() writable {
	c := plantest.Standard()
	c.Tables["r"] = []plantest.Version{{Schema: arrow.NewSchema([]arrow.Field{
		{Name: "_rowaddr", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)}}
	return writable{c}
}

func bindWrite(t *testing.T, cat catalog.Catalog, sql string) (plan.Node, []arrow.DataType, error) {
	t.Helper()
	stmt, err := parse.Parse(sql)
	require.NoError(t, err)
	require.True(t, bind.IsWrite(stmt))
	return bind.BindWrite(context.Background(), cat, stmt, nil)
}

// TestBindWrite checks the plans of writes: the node, its target (latest version), its
// source plan (casts to the table's types, NULL for columns left out, row addresses first
// for DELETE and UPDATE) and the parameter types inferred from the target columns.
func TestBindWrite(t *testing.T) {
	i64, str, f64, i32 := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32
	tests := []struct {
		sql    string
		node   plan.Node
		source string
		params []arrow.DataType
	}{
		{
			sql:  "INSERT INTO t (id, name) VALUES (1, 'a'), (?, NULL)",
			node: &plan.Insert{},
			source: "Values: columns=[id, name, score, qty, day, ts] rows=[(1, 'a', NULL, NULL, NULL, NULL), " +
				"(CAST($1 AS int64), NULL, NULL, NULL, NULL, NULL)]\n",
			params: []arrow.DataType{i64},
		},
		{
			sql:  "insert into flightd.main.T (qty, ID, score) values (?, 1, '2.5'), (7, 2, ?)",
			node: &plan.Insert{},
			source: "Values: columns=[id, name, score, qty, day, ts] rows=[(1, NULL, 2.5, CAST($1 AS int32), NULL, NULL), " +
				"(2, NULL, CAST($2 AS float64), 7, NULL, NULL)]\n",
			params: []arrow.DataType{i32, f64},
		},
		{
			sql:  "INSERT INTO u SELECT id, qty, name, score FROM t",
			node: &plan.Insert{},
			source: "Project: id := id#0, t_id := CAST(qty#1 AS int64), name := name#2, amount := score#3\n" +
				"  Project: id := id#0, qty := qty#3, name := name#1, score := score#2\n" +
				"    Scan: t version=3 columns=[id#0, name#1, score#2, qty#3, day#4, ts#5]\n",
			params: nil,
		},
		{
			sql:  "DELETE FROM t WHERE qty > 3",
			node: &plan.Delete{},
			source: "Project: _rowaddr := _rowaddr#6\n" +
				"  Filter: gt(qty#3, 3)\n" +
				"    Scan: t version=3 columns=[id#0, name#1, score#2, qty#3, day#4, ts#5, _rowaddr]\n",
			params: nil,
		},
		{
			sql:  "UPDATE t AS x SET score = x.score + 1, name = ? WHERE x.id = 7",
			node: &plan.Update{},
			source: "Project: _rowaddr := _rowaddr#6, id := id#0, name := CAST($1 AS utf8), score := add(score#2, 1), " +
				"qty := qty#3, day := day#4, ts := ts#5\n" +
				"  Filter: equal(id#0, 7)\n" +
				"    Scan: t version=3 columns=[id#0, name#1, score#2, qty#3, day#4, ts#5, _rowaddr]\n",
			params: []arrow.DataType{str},
		},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			n, types, err := bindWrite(t, writableCatalog(), tt.sql)
			require.NoError(t, err)
			require.IsType(t, tt.node, n)
			require.Equal(t, plan.CountSchema, n.Schema())
			src, ok := plan.WriteSource(n)
			require.True(t, ok)
			require.Equal(t, tt.source, plan.Explain(src))
			require.Equal(t, tt.params, types)
			var target plan.WriteTarget
			switch w := n.(type) {
			case *plan.Insert:
				target = w.Target
			case *plan.Delete:
				target = w.Target
			case *plan.Update:
				target = w.Target
			}
			require.NotNil(t, target.Catalog)
			if target.Table.Name() == "t" {
				require.Equal(t, uint64(3), target.Table.Version(), "writes read the latest version")
			}
		})
	}
}

// TestBindWriteValues binds parameter values: they are cast to the target column types.
func TestBindWriteValues(t *testing.T) {
	stmt, err := parse.Parse("UPDATE t SET qty = ? WHERE id = ?")
	require.NoError(t, err)
	n, types, err := bind.BindWrite(context.Background(), writableCatalog(), stmt,
		[]scalar.Scalar{scalar.NewInt64Scalar(5), scalar.NewStringScalar("7")})
	require.NoError(t, err)
	require.Equal(t, []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64}, types)
	src, _ := plan.WriteSource(n)
	require.Equal(t, "Project: _rowaddr := _rowaddr#6, id := id#0, name := name#1, score := score#2, qty := 5, day := day#4, ts := ts#5\n"+
		"  Filter: equal(id#0, 7)\n"+
		"    Scan: t version=3 columns=[id#0, name#1, score#2, qty#3, day#4, ts#5, _rowaddr]\n", plan.Explain(src))

	_, _, err = bind.BindWrite(context.Background(), writableCatalog(), stmt, []scalar.Scalar{scalar.NewInt64Scalar(5)})
	require.ErrorContains(t, err, "2 parameters, 1 values were bound")
}

// TestBindWriteErrors checks the classification of what a write cannot do.
func TestBindWriteErrors(t *testing.T) {
	tests := []struct {
		sql      string
		readOnly bool
		kind     dberr.Kind
		is       error
		msg      string
	}{
		{sql: "INSERT INTO t (nope) VALUES (1)", kind: dberr.Binder, msg: `does not have a column with name "nope"`},
		{sql: "INSERT INTO t (name) VALUES ('x')", kind: dberr.Constraint, msg: "NOT NULL constraint failed: t.id"},
		{sql: "INSERT INTO t VALUES (1)", kind: dberr.Binder, msg: "table has 6 columns but 1 values were supplied"},
		{sql: "INSERT INTO t (id, ID) VALUES (1, 2)", kind: dberr.Binder, msg: "Duplicate column name"},
		{sql: "INSERT INTO t (id) SELECT 1, 2", kind: dberr.Binder, msg: "table has 1 columns but the query produces 2"},
		{sql: "INSERT INTO t (id) VALUES ('abc')", kind: dberr.Conversion},
		{sql: "INSERT INTO missing VALUES (1)", kind: dberr.Catalog, is: catalog.ErrNoSuchTable},
		{sql: "INSERT INTO t (id) VALUES (1)", readOnly: true, kind: dberr.NotImplemented, msg: "read-only"},
		{sql: "UPDATE t SET nope = 1", kind: dberr.Binder, msg: "nope not found"},
		{sql: "UPDATE t SET id = 1, ID = 2", kind: dberr.Binder, msg: "Multiple assignments"},
		{sql: "UPDATE t SET id = 1 FROM u", kind: dberr.NotImplemented, msg: "UPDATE ... FROM"},
		{sql: "UPDATE t SET id = sum(id)", kind: dberr.Binder},
		{sql: "UPDATE t SET id = 1", readOnly: true, kind: dberr.NotImplemented, msg: "read-only"},
		{sql: "UPDATE t AT (VERSION => 1) SET id = 1", kind: dberr.InvalidInput, msg: "past version"},
		{sql: "DELETE FROM t AT (VERSION => 1)", kind: dberr.InvalidInput, msg: "past version"},
		{sql: "DELETE FROM t WHERE nope", kind: dberr.Binder},
		{sql: "DELETE FROM r", kind: dberr.NotImplemented, msg: "column named _rowaddr"},
		{sql: "DELETE FROM missing", kind: dberr.Catalog, is: catalog.ErrNoSuchTable},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			var cat catalog.Catalog = writableCatalog()
			if tt.readOnly {
				cat = plantest.Standard()
			}
			_, _, err := bindWrite(t, cat, tt.sql)
			require.Error(t, err)
			kind, ok := dberr.KindOf(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, tt.kind, kind, "%v", err)
			if tt.is != nil {
				require.ErrorIs(t, err, tt.is)
			}
			require.ErrorContains(t, err, tt.msg)
		})
	}
}

// TestBindCreateTable checks CREATE TABLE's new schema (DuckDB type names, NOT NULL; AS query:
// the query's names and types, nullable), its mode and its source.
func TestBindCreateTable(t *testing.T) {
	tests := []struct {
		sql         string
		schema      string
		mode        catalog.CreateMode
		ifNotExists bool
		source      string
	}{
		{
			sql:    "CREATE TABLE n (id BIGINT NOT NULL, name VARCHAR(10), d DATE, x DECIMAL(10, 2), ok BOOLEAN)",
			schema: "schema: id int64, name utf8 null, d date32 null, x decimal(10, 2) null, ok bool null",
			mode:   catalog.CreateNew,
			source: "Values: columns=[id, name, d, x, ok] rows=[]\n",
		},
		{
			sql:    "CREATE OR REPLACE TABLE t AS SELECT id, score * 2 AS s FROM t WHERE qty > 1",
			schema: "schema: id int64 null, s float64 null",
			mode:   catalog.CreateOrReplace,
			source: "Project: id := id#0, s := multiply(score#2, 2)\n" +
				"  Filter: gt(qty#3, 1)\n" +
				"    Scan: t version=3 columns=[id#0, name#1, score#2, qty#3, day#4, ts#5]\n",
		},
		{
			// an untyped NULL column is stored as INTEGER (Lance has no NULL type yet)
			sql:    "CREATE TABLE n AS SELECT NULL AS x, 2.5 AS d",
			schema: "schema: x int32 null, d decimal(2, 1) null",
			mode:   catalog.CreateNew,
			source: "Project: x := NULL, d := 2.5\n  Values: columns=[] rows=[()]\n",
		},
		{
			sql:         "CREATE TABLE IF NOT EXISTS t (a INT)",
			schema:      "schema: a int32 null",
			mode:        catalog.CreateNew,
			ifNotExists: true,
			source:      "Values: columns=[a] rows=[]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			n, types, err := bindWrite(t, writableCatalog(), tt.sql)
			require.NoError(t, err)
			require.Empty(t, types)
			ct, ok := n.(*plan.CreateTable)
			require.True(t, ok, "%T", n)
			require.Equal(t, plan.CountSchema, n.Schema())
			require.Equal(t, tt.schema, plantest.SchemaString(ct.Table))
			require.Equal(t, tt.mode, ct.Mode)
			require.Equal(t, tt.ifNotExists, ct.IfNotExists)
			require.Equal(t, tt.source, plan.Explain(ct.Source))
		})
	}
}

func TestBindCreateTableErrors(t *testing.T) {
	tests := []struct {
		sql      string
		readOnly bool
		kind     dberr.Kind
		is       error
	}{
		{sql: "CREATE TABLE t (a INT)", kind: dberr.Catalog, is: catalog.ErrTableExists},
		{sql: "CREATE TABLE n (a INT PRIMARY KEY)", kind: dberr.NotImplemented},
		{sql: "CREATE TABLE n (a INT DEFAULT 1)", kind: dberr.NotImplemented},
		{sql: "CREATE TABLE n (a INT, A BIGINT)", kind: dberr.Binder},
		{sql: "CREATE TABLE n AS SELECT id, id FROM t", kind: dberr.Binder},
		{sql: "CREATE TABLE n (a GEOMETRY)", kind: dberr.NotImplemented},
		{sql: "CREATE TABLE other.main.n (a INT)", kind: dberr.Catalog, is: catalog.ErrNoSuchTable},
		{sql: "CREATE TABLE n (a INT)", readOnly: true, kind: dberr.NotImplemented},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			var cat catalog.Catalog = writableCatalog()
			if tt.readOnly {
				cat = plantest.Standard()
			}
			_, _, err := bindWrite(t, cat, tt.sql)
			require.Error(t, err)
			kind, ok := dberr.KindOf(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, tt.kind, kind, "%v", err)
			if tt.is != nil {
				require.ErrorIs(t, err, tt.is)
			}
		})
	}
}

// TestBindWriteIgnoresSessionVersions: a session's default versions (time travel for reads)
// never move a write's target off the latest version; reads in the statement keep them.
func TestBindWriteIgnoresSessionVersions(t *testing.T) {
	ctx := bind.WithVersionDefaults(context.Background(), bind.VersionDefaults{
		Tables: map[string]catalog.VersionRef{"t": {Version: 1}},
	})
	stmt, err := parse.Parse("DELETE FROM t WHERE id IN (SELECT id FROM t)")
	require.NoError(t, err)
	n, _, err := bind.BindWrite(ctx, writableCatalog(), stmt, nil)
	require.NoError(t, err)
	d := n.(*plan.Delete)
	require.Equal(t, uint64(3), d.Target.Table.Version())
	text := plan.Explain(d.Source)
	require.Contains(t, text, "Scan: t version=3 columns=[id#0, name#1, score#2, qty#3, day#4, ts#5, _rowaddr]")
	require.Contains(t, text, "Scan: t version=1 ", "the subquery reads the session's version")
}
