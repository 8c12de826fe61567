package planner_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/internal/dberr"
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
		"SELECT FROM":                 dberr.Parser,
		"SELECT nope FROM t":          dberr.Binder,
		"SELECT * FROM missing":       dberr.Catalog,
		"SELECT * FROM t JOIN t2":     dberr.NotImplemented,
		"EXPLAIN SELECT * FROM t":     dberr.NotImplemented,
		"SELECT a FROM t; SELECT 1":   dberr.NotImplemented,
		"SELECT * FROM t WHERE id=$1": dberr.NotImplemented,
	} {
		_, err := p.PlanSQL(context.Background(), sql)
		got, ok := dberr.KindOf(err)
		require.True(t, ok, "%s: %v", sql, err)
		require.Equal(t, kind, got, "%s: %v", sql, err)
	}
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
	python := "../.venv/bin/python"
	if _, err := os.Stat(python); err != nil {
		t.Skip("needs the Python venv with duckdb (make test builds it): " + err.Error())
	}
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
	queries = append(queries, "SELECT Id + id2, u + id2, amount > 1, sum(amount) FROM Mixed GROUP BY 1, 2, 3")
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
