package build_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/memcat"
	flexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/planner/plan"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const nRows = 1000

var (
	i64 = arrow.PrimitiveTypes.Int64
	f64 = arrow.PrimitiveTypes.Float64
	str = arrow.BinaryTypes.String
	bln = arrow.FixedWidthTypes.Boolean
)

// The table t(i, a, b, c), generated identically here and in DuckDB (tableSQL):
// a is unique or NULL, b is one of 7 groups or NULL, c a double or NULL.
var tSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i", Type: i64}, {Name: "a", Type: i64, Nullable: true},
	{Name: "b", Type: str, Nullable: true}, {Name: "c", Type: f64, Nullable: true},
}, nil)

const tableSQL = `create table t as select i,
  case when i % 13 = 0 then null else (i * 37) % 1009 end as a,
  case when i % 11 = 0 then null else 'g' || (i % 7) end as b,
  case when i % 17 = 0 then null else i * 1.25 - 300 end::double as c
from range(1000) r(i)`

func tRows() exectest.Rows {
	rows := make(exectest.Rows, nRows)
	for i := range nRows {
		var a, b, c any
		if i%13 != 0 {
			a = int64(i * 37 % 1009)
		}
		if i%11 != 0 {
			b = fmt.Sprintf("g%d", i%7)
		}
		if i%17 != 0 {
			c = float64(i)*1.25 - 300
		}
		rows[i] = []any{int64(i), a, b, c}
	}
	return rows
}

func col(i int) *plan.ColumnRef {
	f := tSchema.Field(i)
	return &plan.ColumnRef{Index: i, Name: f.Name, DataType: f.Type, Null: f.Nullable}
}

// ref re-targets a column reference at position idx of a projected input.
func ref(c *plan.ColumnRef, idx int) *plan.ColumnRef {
	r := *c
	r.Index = idx
	return &r
}

func lit(v any) *plan.Literal { return &plan.Literal{Value: scalar.MakeScalar(v)} }

func call(fn string, dt arrow.DataType, args ...plan.Expr) *plan.Call {
	return &plan.Call{Func: fn, Args: args, DataType: dt, Null: true}
}

func aggCall(fn string, dt arrow.DataType, distinct bool, args ...plan.Expr) plan.AggCall {
	return plan.AggCall{Func: fn, Args: args, Distinct: distinct, DataType: dt, Null: true, Name: fn}
}

type query struct {
	name    string
	sql     string
	ordered bool
	plan    func(t catalog.Table) plan.Node
}

var queries = []query{
	{
		name: "scalar-functions", ordered: true,
		sql: `SELECT i, (i % 7) - 3, CAST(c AS VARCHAR), b LIKE 'g1%', CASE WHEN a % 3 = 0 THEN NULL WHEN a % 3 = 1 THEN a // 3 ELSE -a END,
			coalesce(b, 'none'), CAST(c AS INTEGER), c / (i - 20) FROM t WHERE i < 60 ORDER BY i`,
		plan: func(t catalog.Table) plan.Node {
			s := plan.NewScan(t, []int{0, 1, 2, 3})
			s.Filter = call("lt", bln, ref(col(0), 0), lit(int64(60)))
			i, a, b, c := ref(col(0), 0), ref(col(1), 1), ref(col(2), 2), ref(col(3), 3)
			amod3 := call("modulus", i64, a, lit(int64(3)))
			p := plan.NewProject(s, []plan.Expr{
				i,
				call("subtract", i64, call("modulus", i64, i, lit(int64(7))), lit(int64(3))),
				&plan.Cast{Input: c, DataType: str},
				call("like", bln, b, lit("g1%")),
				call("case", i64, call("equal", bln, amod3, lit(int64(0))), &plan.Literal{Value: scalar.MakeNullScalar(i64)},
					call("equal", bln, amod3, lit(int64(1))), call("divide", i64, a, lit(int64(3))), call("negate", i64, a)),
				call("coalesce", str, b, lit("none")),
				&plan.Cast{Input: c, DataType: arrow.PrimitiveTypes.Int32},
				call("divide", f64, c, &plan.Cast{Input: call("subtract", i64, i, lit(int64(20))), DataType: f64}),
			}, []string{"i", "m", "cs", "l", "k", "bb", "ci", "q"})
			return &plan.Sort{Input: p, Keys: []plan.SortKey{{Expr: &plan.ColumnRef{Index: 0, DataType: i64}}}}
		},
	},
	{
		name: "filter-in-scan-sort-limit", ordered: true,
		sql: "SELECT a, b FROM t WHERE a > 5 ORDER BY a LIMIT 10",
		plan: func(t catalog.Table) plan.Node {
			s := plan.NewScan(t, []int{1, 2})
			s.Filter = call("gt", bln, ref(col(1), 0), lit(int64(5)))
			return &plan.Limit{Input: &plan.Sort{Input: s, Keys: []plan.SortKey{{Expr: ref(col(1), 0)}}}, Count: 10}
		},
	},
	{
		name: "filter-node-sort-desc-offset", ordered: true,
		sql: "SELECT a, b FROM t WHERE a > 5 AND b IS NOT NULL ORDER BY a DESC LIMIT 10 OFFSET 3",
		plan: func(t catalog.Table) plan.Node {
			s := plan.NewScan(t, []int{1, 2})
			f := &plan.Filter{Input: s, Cond: call("and", bln,
				call("gt", bln, ref(col(1), 0), lit(int64(5))), call("is_not_null", bln, ref(col(2), 1)))}
			return &plan.Limit{Input: &plan.Sort{Input: f, Keys: []plan.SortKey{{Expr: ref(col(1), 0), Descending: true}}}, Offset: 3, Count: 10}
		},
	},
	{
		name: "count-star", sql: "SELECT count(*) FROM t",
		plan: func(t catalog.Table) plan.Node {
			return plan.NewAggregate(plan.NewScan(t, nil), nil, nil, []plan.AggCall{aggCall("count", i64, false)})
		},
	},
	{
		name: "group-by",
		sql:  "SELECT b, sum(a), avg(c), min(a), max(c), min(c), count(*), count(a), count(DISTINCT a % 10) FROM t GROUP BY b",
		plan: func(t catalog.Table) plan.Node {
			s := plan.NewScan(t, []int{1, 2, 3})
			a, b, c := ref(col(1), 0), ref(col(2), 1), ref(col(3), 2)
			return plan.NewAggregate(s, []plan.Expr{b}, []string{"b"}, []plan.AggCall{
				aggCall("sum", i64, false, a), aggCall("avg", f64, false, c), aggCall("min", i64, false, a),
				aggCall("max", f64, false, c), aggCall("min", f64, false, c), aggCall("count", i64, false),
				aggCall("count", i64, false, a), aggCall("count", i64, true, call("modulus", i64, a, lit(int64(10)))),
			})
		},
	},
	{
		name: "project-group-by-expression", ordered: true,
		sql: "SELECT a % 5 AS k, count(*), sum(c) FROM t WHERE c > 0 GROUP BY k ORDER BY k NULLS FIRST",
		plan: func(t catalog.Table) plan.Node {
			s := plan.NewScan(t, []int{1, 3})
			s.Filter = call("gt", bln, ref(col(3), 1), lit(0.0))
			p := plan.NewProject(s, []plan.Expr{call("modulus", i64, ref(col(1), 0), lit(int64(5))), ref(col(3), 1)}, []string{"k", "c"})
			k := &plan.ColumnRef{Index: 0, Name: "k", DataType: i64, Null: true}
			agg := plan.NewAggregate(p, []plan.Expr{k}, []string{"k"}, []plan.AggCall{
				aggCall("count", i64, false), aggCall("sum", f64, false, &plan.ColumnRef{Index: 1, DataType: f64, Null: true}),
			})
			return &plan.Sort{Input: agg, Keys: []plan.SortKey{{Expr: k, NullsFirst: true}}}
		},
	},
}

func TestEndToEnd(t *testing.T) {
	want := duckdbResults(t)
	for _, q := range queries {
		require.NotEmpty(t, want[q.name], "DuckDB returned no rows for %s", q.name)
	}
	for _, q := range queries {
		for _, env := range []struct{ batch, par int }{{7, 1}, {7, 4}, {0, 1}, {0, 3}} {
			t.Run(fmt.Sprintf("%s/batch=%d/par=%d", q.name, env.batch, env.par), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				cat, tbl := newTable(t, mem)
				defer cat.Release()
				op, err := build.Build(q.plan(tbl), flexec.Env{Mem: mem, BatchSize: env.batch, Parallelism: env.par})
				require.NoError(t, err)
				out, err := flexec.Collect(context.Background(), op)
				require.NoError(t, err)
				defer func() {
					for _, b := range out {
						b.Release()
					}
				}()
				got := exectest.ToRows(out)
				if q.name == "count-star" {
					require.Equal(t, exectest.Rows{{int64(nRows)}}, got) // independent of DuckDB
				}
				exectest.RequireRows(t, want[q.name], got, q.ordered)
			})
		}
	}
}

func newTable(t *testing.T, mem memory.Allocator) (*memcat.Catalog, catalog.Table) {
	cat := memcat.New(memcat.WithMorselRows(64))
	bs, err := exectest.MakeBatches(mem, tSchema, tRows(), 300, exectest.Hostile)
	require.NoError(t, err)
	require.NoError(t, cat.AddTable("t", tSchema, bs...))
	for _, b := range bs {
		b.Release()
	}
	tbl, err := cat.LoadTable(context.Background(), "t", catalog.VersionRef{})
	require.NoError(t, err)
	return cat, tbl
}

// duckdbResults runs every query in DuckDB (the pinned peer in .venv) and returns the rows
// by query name.
func duckdbResults(t *testing.T) map[string]exectest.Rows {
	py := testutil.Python(t)
	sqls := map[string]string{}
	for _, q := range queries {
		sqls[q.name] = q.sql
	}
	in, err := json.Marshal(map[string]any{"setup": tableSQL, "queries": sqls})
	require.NoError(t, err)
	script := `
import duckdb, json, sys
req = json.load(sys.stdin)
con = duckdb.connect()
con.execute(req["setup"])
out = {}
for name, sql in req["queries"].items():
    out[name] = [[v if v is None or isinstance(v, (bool, str)) else (int(v) if float(v).is_integer() and not isinstance(v, float) else ('__float:' + str(v) if v != v or v in (float('inf'), float('-inf')) else float(v))) for v in row] for row in con.execute(sql).fetchall()]
json.dump(out, sys.stdout)
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	res, err := cmd.Output()
	require.NoError(t, err, "duckdb: %s", stderrOf(err))
	var raw map[string][][]any
	dec := json.NewDecoder(strings.NewReader(string(res)))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&raw))
	out := map[string]exectest.Rows{}
	for name, rows := range raw {
		for _, r := range rows {
			for i, v := range r {
				if s, ok := v.(string); ok && strings.HasPrefix(s, "__float:") { // inf, -inf, nan
					f, err := strconv.ParseFloat(strings.TrimPrefix(s, "__float:"), 64)
					require.NoError(t, err)
					r[i] = f
				}
				if n, ok := v.(json.Number); ok {
					if iv, err := n.Int64(); err == nil {
						r[i] = iv
					} else {
						f, err := n.Float64()
						require.NoError(t, err)
						r[i] = f
					}
				}
			}
			out[name] = append(out[name], r)
		}
	}
	return out
}

func stderrOf(err error) string {
	ee := &exec.ExitError{}
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

func TestBuildUnsupported(t *testing.T) {
	_, err := build.Build(nil, flexec.Env{})
	require.Error(t, err)
	type other struct{ plan.Filter }
	_, err = build.Build(&other{}, flexec.Env{})
	k, ok := dberr.KindOf(err)
	require.True(t, ok)
	require.Equal(t, dberr.NotImplemented, k)
}
