package planner_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

func TestPlanSQL(t *testing.T) {
	ctx := context.Background()
	p := planner.New(plantest.Standard())
	prep, err := p.PlanSQL(ctx, "SELECT name AS n, qty * 2 FROM t AT (VERSION => 2) WHERE score > 1 ORDER BY n LIMIT 5")
	require.NoError(t, err)
	require.Equal(t, "schema: n utf8 null, (qty * 2) int32 null", plantest.SchemaString(prep.Schema))

	n, err := p.Logical(ctx, prep.Substrait)
	require.NoError(t, err)
	require.True(t, prep.Schema.Equal(n.Schema()), "the consumed plan has the prepared schema")
	require.Equal(t, "Limit: offset=0 count=5\n"+
		"  Sort: n#0 ASC NULLS LAST\n"+
		"    Project: n := name#0, (qty * 2) := multiply(qty#2, 2)\n"+
		"      Scan: t version=2 columns=[name#1, score#2, qty#3] filter=gt(score#1, 1)\n",
		plan.Explain(planner.Optimize(n)))
}

func TestPlanSQLErrors(t *testing.T) {
	p := planner.New(plantest.Standard())
	for sql, kind := range map[string]dberr.Kind{
		"SELECT FROM":                          dberr.Parser,
		"SELECT nope FROM t":                   dberr.Binder,
		"SELECT * FROM missing":                dberr.Catalog,
		"SELECT * FROM t JOIN t2 ON true":      dberr.Catalog,
		"SELECT a FROM t; SELECT 1":            dberr.NotImplemented,
		"EXPLAIN SELECT * FROM t WHERE id = ?": dberr.NotImplemented,
	} {
		_, err := p.PlanSQL(context.Background(), sql)
		got, ok := dberr.KindOf(err)
		require.True(t, ok, "%s: %v", sql, err)
		require.Equal(t, kind, got, "%s: %v", sql, err)
	}
}

// TestPlanExplainAnalyze: EXPLAIN ANALYZE plans the inner query and marks it to be profiled.
func TestPlanExplainAnalyze(t *testing.T) {
	p := planner.New(plantest.Standard())
	prep, err := p.PlanSQL(context.Background(), "EXPLAIN ANALYZE SELECT name FROM t WHERE score > 1")
	require.NoError(t, err)
	require.True(t, prep.Analyze)
	require.True(t, planner.ExplainSchema.Equal(prep.Schema))
	n, err := p.Logical(context.Background(), prep.Substrait)
	require.NoError(t, err)
	require.Equal(t, 1, n.Schema().NumFields(), "the plan is the inner query's")
	require.Equal(t, "name", n.Schema().Field(0).Name)
}

// TestPlanSubstraitPins: a client plan without a version pin is pinned to the latest
// version, so later commits do not change what its tickets read.
func TestPlanSubstraitPins(t *testing.T) {
	ctx := context.Background()
	cat := plantest.Standard()
	p := planner.New(cat)
	prep, err := p.PlanSQL(ctx, "SELECT id FROM t AT (VERSION => 1)")
	require.NoError(t, err)
	var pl pb.Plan
	require.NoError(t, proto.Unmarshal(prep.Substrait, &pl))
	read := pl.GetRelations()[0].GetRoot().GetInput().GetProject().GetInput().GetRead()
	read.AdvancedExtension = nil // a client plan names no version
	read.BaseSchema = nil
	client, err := proto.Marshal(&pl)
	require.NoError(t, err)

	pinned, err := p.PlanSubstrait(ctx, client)
	require.NoError(t, err)
	// A fourth version appears; the pinned plan still reads version 3.
	cat.Tables["t"] = append(cat.Tables["t"], cat.Tables["t"][2])
	n, err := p.Logical(ctx, pinned.Substrait)
	require.NoError(t, err)
	require.Contains(t, plan.Explain(n), "Scan: t version=3 ")
	n, err = p.Logical(ctx, client)
	require.NoError(t, err)
	require.Contains(t, plan.Explain(n), "Scan: t version=4 ")

	_, err = p.PlanSubstrait(ctx, []byte("not a plan"))
	kind, _ := dberr.KindOf(err)
	require.Equal(t, dberr.InvalidInput, kind)
}

func TestExplain(t *testing.T) {
	p := planner.New(plantest.Standard())
	for _, sql := range []string{"EXPLAIN SELECT count(*) FROM t", "SELECT count(*) FROM t"} {
		got, err := p.Explain(context.Background(), sql)
		require.NoError(t, err)
		require.Equal(t, "Project: count_star() := count_star()#0\n"+
			"  Aggregate: group=[] aggs=[count_star() := count(*)]\n"+
			"    Scan: t version=3 columns=[]\n", got)
	}
	prep, err := p.PlanSQL(context.Background(), "SELECT id FROM t")
	require.NoError(t, err)
	js, err := planner.SubstraitJSON(prep.Substrait)
	require.NoError(t, err)
	require.Contains(t, js, "type.googleapis.com/flightd.v1.LanceRead")
}

// duckType is DuckDB's name for the Arrow types the binder produces.
func duckType(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.Decimal128Type:
		return "DECIMAL(" + itoa(int(t.Precision)) + "," + itoa(int(t.Scale)) + ")"
	case *arrow.TimestampType:
		return "TIMESTAMP"
	}
	return map[arrow.Type]string{
		arrow.INT8: "TINYINT", arrow.INT16: "SMALLINT", arrow.INT32: "INTEGER", arrow.INT64: "BIGINT",
		arrow.UINT32: "UINTEGER", arrow.FLOAT32: "FLOAT", arrow.FLOAT64: "DOUBLE", arrow.STRING: "VARCHAR",
		arrow.BOOL: "BOOLEAN", arrow.DATE32: "DATE",
	}[t.ID()]
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestDuckDBResultSchemas compares result column names and types with DuckDB's DESCRIBE
// of the same query over tables of the same schemas. Known, intended differences: DuckDB
// sums integers to HUGEINT (we use BIGINT), and it double-quotes keywords such as "name"
// inside generated column names (we do not; quotes are removed before comparing).
func TestDuckDBResultSchemas(t *testing.T) {
	python := testutil.Python(t)
	queries := []string{
		"SELECT * FROM t",
		"SELECT id AS i, name, SCORE FROM t AS x",
		"SELECT count(*), count(name), count(DISTINCT qty), sum(qty), sum(score), avg(qty), min(name), max(day) FROM t",
		"SELECT qty + 1 AS q, count(*) FROM t GROUP BY q",
		"SELECT qty + 1, count(*) FROM t GROUP BY qty + 1",
		"SELECT qty + id, qty * 2, id / qty, qty % 2, -qty, qty > 1, qty IS NULL, NOT (qty > 1) FROM t",
		"SELECT CAST(qty AS BIGINT), CAST(qty AS VARCHAR), CAST(qty AS DECIMAL(10,2)), 42, 3000000000, 's' FROM t",
		"SELECT qty BETWEEN 1 AND 3, qty IN (1, 2), CASE WHEN qty > 1 THEN 'a' ELSE 'b' END AS c FROM t",
		"SELECT DISTINCT name, qty FROM t ORDER BY qty LIMIT 3",
		"SELECT Id + id2, u + id2, amount > 1, flag AND qty_free FROM Mixed",
	}
	queries = queries[:len(queries)-1]
	queries = append(queries, "SELECT Id + id2, u + id2, amount > 1, sum(amount) FROM Mixed GROUP BY 1, 2, 3",
		"SELECT t.*, u.* FROM t JOIN u ON t.id = u.t_id",
		"SELECT * FROM t JOIN u USING (id)",
		"SELECT * FROM t NATURAL JOIN u",
		"SELECT id, t.id, u.id FROM t FULL JOIN u USING (id)",
		"SELECT * FROM t SEMI JOIN u ON t.id = u.t_id",
		"SELECT x.name, y.amount FROM t x LEFT JOIN u y ON x.qty = y.id",
		"SELECT s.n, m FROM (SELECT id AS n, max(score) AS m FROM t GROUP BY id) AS s",
		"WITH c(a, b) AS (SELECT id, name FROM u) SELECT * FROM c",
		"SELECT id, (SELECT max(amount) FROM u) AS top, id IN (SELECT t_id FROM u) AS found FROM t",
		"SELECT id, (SELECT count(*) FROM u WHERE u.t_id = t.id) FROM t",
		"SELECT id, name FROM t UNION SELECT t_id, name FROM u",
		"SELECT qty FROM t UNION ALL SELECT id FROM u",
		"SELECT 1 AS x UNION SELECT 'a'",
		"SELECT 1, 2 AS y",
		"SELECT * FROM (VALUES (1, 'a'), (2, NULL)) v(n, s)",
		"SELECT name IS DISTINCT FROM 'x' FROM t",
		"SELECT lower(name), length(name), substr(name, 2), concat(name, qty), name || 'x', strpos(name, 'a'), lpad(name, 3, '-'), regexp_matches(name, 'a') FROM t",
		"SELECT abs(qty), ceil(score), ceil(qty), round(qty), round(score, 1), sqrt(qty), power(qty, 2), sign(score), greatest(qty, id), least(qty, score), nullif(qty, 1) FROM t",
		"SELECT EXTRACT(year FROM day), date_part('epoch', ts), date_trunc('month', day), year(ts), day + 1, day - day, day + INTERVAL 1 DAY AS d1 FROM t",
		"SELECT stddev(score), var_pop(qty), bool_or(qty > 1), string_agg(name, ','), approx_count_distinct(id), first(name), count(*) FILTER (WHERE qty > 1) FROM t",
		"SELECT * EXCLUDE (ts) REPLACE (qty + 1 AS qty) FROM t",
		"SELECT row_number() OVER (PARTITION BY name ORDER BY id DESC), rank() OVER (ORDER BY qty), ntile(3) OVER (ORDER BY id), percent_rank() OVER (ORDER BY id), first_value(name) OVER (PARTITION BY qty), avg(score) OVER () FROM t",
		"SELECT DISTINCT ON (qty) qty, name FROM t ORDER BY qty, score DESC",
		"SELECT qty, day, sum(score) AS s, count(*) FROM t GROUP BY ROLLUP (qty, day)",
		"SELECT name, qty, count(*) AS c FROM t GROUP BY CUBE (name, qty)",
	)
	p := planner.New(plantest.Standard())
	var ours []string
	for _, q := range queries {
		prep, err := p.PlanSQL(context.Background(), q)
		require.NoError(t, err, q)
		var cols []string
		for _, f := range prep.Schema.Fields() {
			cols = append(cols, f.Name+" "+duckType(f.Type))
		}
		ours = append(ours, strings.Join(cols, ", "))
	}
	script := `
import duckdb, json, sys
c = duckdb.connect()
c.execute("CREATE TABLE t(id BIGINT, name VARCHAR, score DOUBLE, qty INTEGER, day DATE, ts TIMESTAMP)")
c.execute("CREATE TABLE u(id BIGINT, t_id BIGINT, name VARCHAR, amount DOUBLE)")
c.execute('CREATE TABLE "Mixed"("Id" BIGINT, id2 SMALLINT, amount DECIMAL(10,2), u UINTEGER, flag BOOLEAN)')
out = []
for q in json.load(sys.stdin):
    rows = c.execute("DESCRIBE " + q).fetchall()
    out.append(", ".join(r[0].replace('"', '') + " " + r[1].replace("HUGEINT", "BIGINT") for r in rows))
print(json.dumps(out))
`
	in, err := json.Marshal(queries)
	require.NoError(t, err)
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	require.NoError(t, err, "duckdb: %s", out)
	var theirs []string
	require.NoError(t, json.Unmarshal(out, &theirs))
	for i, q := range queries {
		require.Equal(t, theirs[i], ours[i], q)
	}
}

// TestExplainQuery: EXPLAIN through PlanSQL is a one-row result in DuckDB's shape whose
// value is the optimized plan text.
func TestExplainQuery(t *testing.T) {
	ctx := context.Background()
	p := planner.New(plantest.Standard())
	prep, err := p.PlanSQL(ctx, "EXPLAIN SELECT t.name FROM t, u WHERE t.id = u.t_id")
	require.NoError(t, err)
	require.Equal(t, "schema: explain_key utf8 null, explain_value utf8 null", plantest.SchemaString(prep.Schema))
	n, err := p.Logical(ctx, prep.Substrait)
	require.NoError(t, err)
	want, err := p.Explain(ctx, "SELECT t.name FROM t, u WHERE t.id = u.t_id")
	require.NoError(t, err)
	require.Contains(t, want, "Join: inner keys=[id#0 = t_id#0]")
	v, ok := n.(*plan.Values)
	require.True(t, ok, plan.Explain(n))
	require.Len(t, v.Rows, 1)
	require.Equal(t, "physical_plan", v.Rows[0][0].(*plan.Literal).Value.String())
	require.Equal(t, want, v.Rows[0][1].(*plan.Literal).Value.String())
}

// TestParams: placeholders get their types from context; values are cast to them.
func TestParams(t *testing.T) {
	ctx := context.Background()
	p := planner.New(plantest.Standard())
	tests := []struct {
		sql    string
		params string // schema of Prepared.Params
		values []scalar.Scalar
		plan   string // optimized plan with the values bound
	}{
		{"SELECT name FROM t WHERE id = ? AND score > ?", "schema: $1 int64 null, $2 float64 null",
			[]scalar.Scalar{scalar.NewInt32Scalar(7), scalar.NewStringScalar("1.5")},
			"Project: name := name#1\n  Scan: t version=3 columns=[id#0, name#1, score#2] filter=and(equal(id#0, 7), gt(score#2, 1.5))\n"},
		{"SELECT id FROM t WHERE name LIKE $1 OR name = $1 LIMIT $2", "schema: $1 utf8 null, $2 int64 null",
			[]scalar.Scalar{scalar.NewStringScalar("a%"), scalar.NewInt64Scalar(3)},
			"Limit: offset=0 count=3\n  Project: id := id#0\n    Scan: t version=3 columns=[id#0, name#1] filter=or(like(name#1, 'a%'), equal(name#1, 'a%')) limit=3\n"},
		{"SELECT id FROM t AT (VERSION => ?) WHERE day = ?::DATE", "schema: $1 int64 null, $2 date32 null",
			[]scalar.Scalar{scalar.NewInt64Scalar(1), scalar.NewStringScalar("2026-01-02")},
			"Project: id := id#0\n  Scan: t version=1 columns=[id#0, day#4] filter=equal(day#1, 2026-01-02)\n"},
		{"SELECT ?, id FROM t WHERE qty = ?", "schema: $1 int32 null, $2 int32 null",
			[]scalar.Scalar{scalar.MakeNullScalar(arrow.Null), scalar.NewInt64Scalar(2)},
			"Project: ? := NULL, id := id#0\n  Scan: t version=3 columns=[id#0, qty#3] filter=equal(qty#1, 2)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			prep, err := p.PlanSQL(ctx, tc.sql)
			require.NoError(t, err)
			require.Nil(t, prep.Substrait, "a statement with placeholders is planned when values arrive")
			require.Equal(t, tc.params, plantest.SchemaString(prep.Params))
			bound, err := p.PlanSQLWithParams(ctx, tc.sql, tc.values)
			require.NoError(t, err)
			require.Equal(t, plantest.SchemaString(prep.Schema), plantest.SchemaString(bound.Schema))
			n, err := p.Logical(ctx, bound.Substrait)
			require.NoError(t, err)
			require.Equal(t, tc.plan, plan.Explain(planner.Optimize(n)))
		})
	}
	_, err := p.PlanSQLWithParams(ctx, "SELECT id FROM t WHERE id = ?", nil)
	kind, _ := dberr.KindOf(err)
	require.Equal(t, dberr.InvalidInput, kind, "%v", err)
	_, err = p.PlanSQLWithParams(ctx, "SELECT id FROM t WHERE id = ?", []scalar.Scalar{scalar.NewStringScalar("x")})
	kind, _ = dberr.KindOf(err)
	require.Equal(t, dberr.Conversion, kind, "%v", err)
	prep, err := p.PlanSQL(ctx, "SELECT id FROM t")
	require.NoError(t, err)
	require.Equal(t, 0, prep.Params.NumFields())
}

// TestExplainRecursive: a recursive CTE shows its fixpoint and working-table nodes.
func TestExplainRecursive(t *testing.T) {
	p := planner.New(plantest.Standard())
	text, err := p.Explain(context.Background(),
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^\s*RecursiveCTE: id=\d+ union all$`, text)
	require.Regexp(t, `(?m)^\s*WorkingTable: id=\d+$`, text)
}

// A long IN list plans, round-trips through Substrait and optimizes: its ORs nest a few
// levels deep, not one level per value.
func TestPlanLongInList(t *testing.T) {
	ctx := context.Background()
	p := planner.New(plantest.Standard())
	vals := make([]string, 5000)
	for i := range vals {
		vals[i] = itoa(i * 3)
	}
	prep, err := p.PlanSQL(ctx, "SELECT name FROM t WHERE qty IN ("+strings.Join(vals, ", ")+")")
	require.NoError(t, err)
	n, err := p.Logical(ctx, prep.Substrait)
	require.NoError(t, err, "the plan decodes within protobuf's nesting limit")
	require.Contains(t, plan.Explain(planner.Optimize(n)), "Scan: t ")
}
