package ops_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	flexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/planner/plan"
)

// The differential table: id (unique), g (partition, with NULLs), o (order key with ties and
// NULLs), x (double), i (bigint), s (varchar), b (boolean).
var diffSchema = schema(field("id", i64), field("g", str), field("o", i64), field("x", f64),
	field("i", i64), field("s", str), field("b", bln), field("d", dec92))

var dec92 = &arrow.Decimal128Type{Precision: 9, Scale: 2}

const diffTableSQL = "CREATE TABLE t(id BIGINT, g VARCHAR, o BIGINT, x DOUBLE, i BIGINT, s VARCHAR, b BOOLEAN, d DECIMAL(9,2))"

func diffRows(n int) exectest.Rows {
	rng := rand.New(rand.NewPCG(7, 11))
	maybe := func(v any) any {
		if rng.IntN(8) == 0 {
			return nil
		}
		return v
	}
	groups := []string{"a", "b", "c", "d"}
	rows := make(exectest.Rows, n)
	for r := range rows {
		rows[r] = []any{int64(r), maybe(groups[rng.IntN(len(groups))]), maybe(int64(rng.IntN(25))),
			maybe(float64(rng.IntN(2000)-1000) / 8), maybe(int64(rng.IntN(200) - 100)),
			maybe(string(rune('a'+rng.IntN(26))) + string(rune('a'+rng.IntN(26)))), maybe(rng.IntN(3) > 0),
			maybe(fmt.Sprintf("%d.%02d", rng.IntN(40)-20, rng.IntN(4)*25))}
	}
	return rows
}

// diffCase is one window function and the same function in DuckDB's SQL.
type diffCase struct {
	sql string
	f   plan.WindowFunc
}

func diffCases() []diffCase {
	id, g, o, x, i, s, b := col(0, i64), col(1, str), col(2, i64), col(3, f64), col(4, i64), col(5, str), col(6, bln)
	d, dec382 := col(7, dec92), &arrow.Decimal128Type{Precision: 38, Scale: 2}
	day := call("add", dt32, lit(arrow.Date32(18262)), o) // DATE '2020-01-01' + o
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	pg := []plan.Expr{g}
	byO, byOID := []plan.SortKey{asc(o)}, []plan.SortKey{asc(o), asc(id)}
	byID := []plan.SortKey{asc(id)}
	rows := func(s, e plan.FrameBound) *plan.Frame { return frame(plan.FrameRows, s, e) }
	rng := func(s, e plan.FrameBound) *plan.Frame { return frame(plan.FrameRange, s, e) }
	grp := func(s, e plan.FrameBound) *plan.Frame { return frame(plan.FrameGroups, s, e) }
	distinct := func(f plan.WindowFunc) plan.WindowFunc { f.Distinct = true; return f }
	filtered := func(f plan.WindowFunc, c plan.Expr) plan.WindowFunc { f.Filter = c; return f }
	ignoring := func(f plan.WindowFunc) plan.WindowFunc { f.IgnoreNulls = true; return f }
	return []diffCase{
		{"row_number() OVER (PARTITION BY g ORDER BY o, id)", over(winFn("row_number", i64), pg, byOID, nil)},
		{"rank() OVER (PARTITION BY g ORDER BY o)", over(winFn("rank", i64), pg, byO, nil)},
		{"dense_rank() OVER (PARTITION BY g ORDER BY o DESC NULLS FIRST)", over(winFn("dense_rank", i64), pg, []plan.SortKey{nullsFirst(desc(o))}, nil)},
		{"percent_rank() OVER (PARTITION BY g ORDER BY o)", over(winFn("percent_rank", f64), pg, byO, nil)},
		{"cume_dist() OVER (ORDER BY o NULLS FIRST)", over(winFn("cume_dist", f64), nil, []plan.SortKey{nullsFirst(asc(o))}, nil)},
		{"cume_dist() OVER (PARTITION BY g)", over(winFn("cume_dist", f64), pg, nil, nil)},
		{"percent_rank() OVER ()", over(winFn("percent_rank", f64), nil, nil, nil)},
		{"ntile(4) OVER (PARTITION BY g ORDER BY o, id)", over(winFn("ntile", i64, lit(int64(4))), pg, byOID, nil)},
		{"ntile(7) OVER (ORDER BY id)", over(winFn("ntile", i64, lit(int64(7))), nil, byID, nil)},
		{"lag(x) OVER (PARTITION BY g ORDER BY o, id)", over(winFn("lag", f64, x), pg, byOID, nil)},
		{"lead(x, 2, -1.0) OVER (PARTITION BY g ORDER BY o, id)", over(winFn("lead", f64, x, lit(int64(2)), lit(-1.0)), pg, byOID, nil)},
		{"lag(i, o) OVER (ORDER BY id)", over(winFn("lag", i64, i, o), nil, byID, nil)},
		{"lead(s, 3, s) OVER (PARTITION BY g ORDER BY id)", over(winFn("lead", str, s, lit(int64(3)), s), pg, byID, nil)},
		{"first_value(x) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING)",
			over(winFn("first_value", f64, x), pg, byOID, rows(pre(int64(2)), fol(int64(1))))},
		{"last_value(o) OVER (PARTITION BY g ORDER BY o)", over(winFn("last_value", i64, o), pg, byO, nil)},
		{"last_value(s) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 4 FOLLOWING)", over(winFn("last_value", str, s), nil, byID, rows(curRow, fol(int64(4))))},
		{"nth_value(x, 3) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
			over(winFn("nth_value", f64, x, lit(int64(3))), pg, byOID, rows(unbPre, unbFol))},
		{"nth_value(s, 2) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 3 FOLLOWING)", over(winFn("nth_value", str, s, lit(int64(2))), nil, byID, rows(pre(int64(1)), fol(int64(3))))},
		{"first_value(s) OVER (PARTITION BY g ORDER BY o, id RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)",
			over(winFn("first_value", str, s), pg, byOID, rng(curRow, unbFol))},
		{"count(*) OVER (PARTITION BY g)", over(winFn("count", i64), pg, nil, nil)},
		{"count(x) OVER (PARTITION BY g ORDER BY o)", over(winFn("count", i64, x), pg, byO, nil)},
		{"sum(i) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING)", over(winFn("sum", i64, i), pg, byOID, rows(pre(int64(3)), fol(int64(2))))},
		{"sum(i) OVER (ORDER BY o RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING)", over(winFn("sum", i64, i), nil, byO, rng(pre(int64(2)), fol(int64(1))))},
		{"sum(i) OVER (ORDER BY o DESC NULLS FIRST RANGE BETWEEN 1 PRECEDING AND 3 FOLLOWING)",
			over(winFn("sum", i64, i), nil, []plan.SortKey{nullsFirst(desc(o))}, rng(pre(int64(1)), fol(int64(3))))},
		{"count(*) OVER (PARTITION BY g ORDER BY o NULLS FIRST RANGE BETWEEN 3 PRECEDING AND 2 PRECEDING)",
			over(winFn("count", i64), pg, []plan.SortKey{nullsFirst(asc(o))}, rng(pre(int64(3)), pre(int64(2))))},
		{"avg(x) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING)", over(winFn("avg", f64, x), pg, byO, grp(pre(int64(1)), fol(int64(1))))},
		{"min(s) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW)", over(winFn("min", str, s), pg, byOID, rows(pre(int64(5)), curRow))},
		{"max(x) OVER (ORDER BY o RANGE BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING)", over(winFn("max", f64, x), nil, byO, rng(unbPre, pre(int64(2))))},
		{"max(i) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING)", over(winFn("max", i64, i), pg, byO, grp(fol(int64(2)), unbFol))},
		{"sum(x) OVER (PARTITION BY g ORDER BY o NULLS FIRST RANGE BETWEEN CURRENT ROW AND 3 FOLLOWING)",
			over(winFn("sum", f64, x), pg, []plan.SortKey{nullsFirst(asc(o))}, rng(curRow, fol(int64(3))))},
		{"sum(x) OVER (ORDER BY x RANGE BETWEEN 10.5 PRECEDING AND 0.25 FOLLOWING)", over(winFn("sum", f64, x), nil, []plan.SortKey{asc(x)}, rng(pre(10.5), fol(0.25)))},
		{"count(DISTINCT o) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)",
			over(distinct(winFn("count", i64, o)), pg, byID, rows(pre(int64(10)), curRow))},
		{"sum(DISTINCT i) OVER (PARTITION BY g ORDER BY o)", over(distinct(winFn("sum", i64, i)), pg, byO, nil)},
		{"string_agg(s, '|') OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
			over(winFn("string_agg", str, s, lit("|")), pg, byOID, rows(pre(int64(2)), curRow))},
		{"stddev_samp(x) OVER (PARTITION BY g ORDER BY o)", over(winFn("stddev_samp", f64, x), pg, byO, nil)},
		{"bool_and(b) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING)", over(winFn("bool_and", bln, b), nil, byID, rows(pre(int64(3)), fol(int64(3))))},
		{"sum(i) FILTER (WHERE b) OVER (PARTITION BY g ORDER BY o, id)", over(filtered(winFn("sum", i64, i), b), pg, byOID, nil)},
		{"count(*) FILTER (WHERE b) OVER (PARTITION BY g ORDER BY o)", over(filtered(winFn("count", i64), b), pg, byO, nil)},
		{"avg(i) OVER ()", over(winFn("avg", f64, i), nil, nil, nil)},
		{"count(*) OVER (ORDER BY id ROWS BETWEEN 3 FOLLOWING AND 1 FOLLOWING)", over(winFn("count", i64), nil, byID, rows(fol(int64(3)), fol(int64(1))))},
		{"min(x) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)", over(winFn("min", f64, x), pg, byOID, rows(curRow, unbFol))},
		{"sum(i) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)", over(winFn("sum", i64, i), pg, byID, rows(unbPre, curRow))},
		{"sum(i) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN o PRECEDING AND CURRENT ROW)",
			over(winFn("sum", i64, i), pg, byID, &plan.Frame{Unit: plan.FrameRows, Start: plan.FrameBound{Kind: plan.Preceding, Offset: call("coalesce", i64, o, lit(int64(0)))}, End: curRow})},
		{"first(x) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)", over(winFn("first", f64, x), nil, byID, rows(pre(int64(2)), fol(int64(2))))},
		{"max(b) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING)", over(winFn("max", bln, b), pg, byO, grp(curRow, fol(int64(1))))},
		{"sum(d) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)", over(winFn("sum", dec382, d), pg, byOID, rows(pre(int64(2)), curRow))},
		{"avg(d) OVER (PARTITION BY g)", over(winFn("avg", f64, d), pg, nil, nil)},
		{"count(*) OVER (ORDER BY d RANGE BETWEEN 1.5 PRECEDING AND 1.25 FOLLOWING)", over(winFn("count", i64), nil, []plan.SortKey{asc(d)}, rng(pre(1.5), fol(1.25)))},
		{"sum(i) OVER (ORDER BY d DESC RANGE BETWEEN CURRENT ROW AND 2.5 FOLLOWING)", over(winFn("sum", i64, i), nil, []plan.SortKey{desc(d)}, rng(curRow, fol(2.5)))},
		{"min(d) OVER (PARTITION BY g ORDER BY o GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW)", over(winFn("min", dec92, d), pg, byO, grp(pre(int64(1)), curRow))},
		{"lag(d, 1, 0.5) OVER (PARTITION BY g ORDER BY id)", over(winFn("lag", dec92, d, lit(int64(1)), lit(0.5)), pg, byID, nil)},
		{"count(*) OVER (ORDER BY DATE '2020-01-01' + CAST(o AS INTEGER) RANGE BETWEEN INTERVAL 3 DAY PRECEDING AND CURRENT ROW)",
			over(winFn("count", i64), nil, []plan.SortKey{asc(day)}, rng(pre(arrow.MonthDayNanoInterval{Days: 3}), curRow))},
		{"sum(i) OVER (PARTITION BY g ORDER BY DATE '2020-01-01' + CAST(o AS INTEGER) DESC RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING)",
			over(winFn("sum", i64, i), pg, []plan.SortKey{desc(day)}, rng(pre(int64(2)), fol(int64(1))))},
		{"count(x) OVER (ORDER BY CAST(DATE '2020-01-01' + CAST(o AS INTEGER) AS TIMESTAMP) RANGE BETWEEN INTERVAL 36 HOUR PRECEDING AND INTERVAL 1 DAY FOLLOWING)",
			over(winFn("count", i64, x), nil, []plan.SortKey{asc(&plan.Cast{Input: day, DataType: ts})},
				rng(pre(arrow.MonthDayNanoInterval{Nanoseconds: 36 * 3600 * 1e9}), fol(arrow.MonthDayNanoInterval{Days: 1})))},
		{"lag(x IGNORE NULLS) OVER (PARTITION BY g ORDER BY o, id)", over(ignoring(winFn("lag", f64, x)), pg, byOID, nil)},
		{"lead(x, 2, -1.0 IGNORE NULLS) OVER (ORDER BY id)", over(ignoring(winFn("lead", f64, x, lit(int64(2)), lit(-1.0))), nil, byID, nil)},
		{"lag(s, o IGNORE NULLS) OVER (ORDER BY id)", over(ignoring(winFn("lag", str, s, o)), nil, byID, nil)},
		{"lag(i, -2 IGNORE NULLS) OVER (PARTITION BY g ORDER BY id)", over(ignoring(winFn("lag", i64, i, lit(int64(-2)))), pg, byID, nil)},
		{"first_value(x IGNORE NULLS) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)",
			over(ignoring(winFn("first_value", f64, x)), pg, byOID, rows(pre(int64(2)), fol(int64(2))))},
		{"last_value(s IGNORE NULLS) OVER (ORDER BY id)", over(ignoring(winFn("last_value", str, s)), nil, byID, nil)},
		{"nth_value(x, 2 IGNORE NULLS) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING)",
			over(ignoring(winFn("nth_value", f64, x, lit(int64(2)))), pg, byID, rows(pre(int64(3)), fol(int64(3))))},
		{"var_pop(i) OVER (PARTITION BY g ORDER BY o, id ROWS BETWEEN 4 PRECEDING AND 1 PRECEDING)", over(winFn("var_pop", f64, i), pg, byOID, rows(pre(int64(4)), pre(int64(1))))},
	}
}

func TestWindowMatchesDuckDB(t *testing.T) {
	input := diffRows(300)
	cases := diffCases()
	for k := range cases {
		cases[k].f.Name = "w" + string(rune('a'+k%26)) + string(rune('a'+k/26))
	}
	// The frame offset o in "o PRECEDING" is NULL for some rows; DuckDB rejects NULL offsets,
	// so the SQL uses coalesce like the plan does.
	for k := range cases {
		cases[k].sql = strings.Replace(cases[k].sql, "BETWEEN o PRECEDING", "BETWEEN coalesce(o, 0) PRECEDING", 1)
	}
	want := duckdbWindow(t, input, cases)
	funcs := make([]plan.WindowFunc, len(cases))
	for k, c := range cases {
		funcs[k] = c.f
	}
	for _, size := range []int{7, 0} {
		got := runWindow(t, input, funcs, size)
		for k, c := range cases {
			for r := range input {
				w := want[k][r]
				if w != nil && c.f.DataType.ID() == arrow.FLOAT64 {
					f, err := w.(json.Number).Float64()
					require.NoError(t, err)
					w = f
				} else if n, ok := w.(json.Number); ok {
					v, err := n.Int64()
					require.NoError(t, err, "%s row %d", c.sql, r)
					w = v
				}
				g := got[r][len(diffSchema.Fields())+k]
				if c.f.DataType.ID() == arrow.DECIMAL128 && w != nil && g != nil { // "1.50" vs "1.5"
					w, g = parseFloat(t, w), parseFloat(t, g)
				}
				require.True(t, exectest.Equal(w, g), "batch %d, %s, row %d (%v): want %v, got %v", size, c.sql, r, input[r], w, g)
			}
		}
	}
}

func parseFloat(t *testing.T, v any) float64 {
	f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	require.NoError(t, err)
	return f
}

// runWindow computes funcs over input with one Window operator and returns its rows.
func runWindow(t *testing.T, input exectest.Rows, funcs []plan.WindowFunc, size int) exectest.Rows {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := flexec.Env{Mem: mem, BatchSize: size}.WithDefaults()
	batches, err := exectest.MakeBatches(mem, diffSchema, input, size, exectest.Hostile)
	require.NoError(t, err)
	out := plan.NewWindow(plan.NewValues(diffSchema, nil), funcs).Schema()
	op := ops.NewWindow(exectest.NewSource(diffSchema, batches), funcs, out, env)
	res, err := flexec.Collect(context.Background(), op)
	require.NoError(t, err)
	defer func() {
		for _, b := range res {
			b.Release()
		}
	}()
	rows := exectest.ToRows(res)
	require.Len(t, rows, len(input))
	for r := range rows {
		require.Equal(t, input[r][0], rows[r][0], "output keeps input order")
	}
	return rows
}

// duckdbWindow runs every case's expression over input in DuckDB and returns, per case, the
// values in id order; nil when the venv is absent.
func duckdbWindow(t *testing.T, input exectest.Rows, cases []diffCase) [][]any {
	py := testutil.Python(t)
	sqls := make([]string, len(cases))
	for k, c := range cases {
		sqls[k] = c.sql
	}
	req, err := json.Marshal(map[string]any{"setup": diffTableSQL, "rows": input, "exprs": sqls})
	require.NoError(t, err)
	script := `
import decimal, duckdb, json, sys
req = json.load(sys.stdin)
con = duckdb.connect()
con.execute(req["setup"])
con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", req["rows"])
out = []
for e in req["exprs"]:
    rows = con.execute("SELECT " + e + " FROM t ORDER BY id").fetchall()
    out.append([str(r[0]) if isinstance(r[0], decimal.Decimal) else r[0] for r in rows])
json.dump(out, sys.stdout)
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(string(req))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	require.NoError(t, err, "duckdb: %s", stderr.String())
	var out [][]any
	dec := json.NewDecoder(strings.NewReader(string(res)))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&out))
	require.Len(t, out, len(cases))
	return out
}
