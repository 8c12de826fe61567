package ops_test

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

var abSchema = schema(field("a", i64), field("b", i64), field("s", str))

var abRows = exectest.Rows{
	{1, 0, "x"},
	{4, 2, "yy"},
	{nil, 0, nil},
	{5, nil, "x"},
	{9, 3, "zzz"},
	{10, 5, ""},
	{-3, -1, "x"},
}

func filterCase(name string, cond plan.Expr, want exectest.Rows) exectest.Case {
	return exectest.Case{
		Name: name, Schema: abSchema, Input: abRows, Expected: want, Ordered: true,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewFilter(in, cond, env), nil
		},
	}
}

func TestFilter(t *testing.T) {
	cases := []exectest.Case{
		filterCase("gt", call("gt", bln, col(0, i64), lit(int64(4))),
			exectest.Rows{{5, nil, "x"}, {9, 3, "zzz"}, {10, 5, ""}}),
		filterCase("null-is-false", call("equal", bln, col(1, i64), lit(int64(0))),
			exectest.Rows{{1, 0, "x"}, {nil, 0, nil}}),
		filterCase("is_null", call("is_null", bln, col(2, str)), exectest.Rows{{nil, 0, nil}}),
		// WHERE b <> 0 AND a // b > 1: the division only sees rows with b <> 0.
		filterCase("guarded-division", call("and", bln,
			call("not_equal", bln, col(1, i64), lit(int64(0))),
			call("gt", bln, call("divide", i64, col(0, i64), col(1, i64)), lit(int64(1)))),
			exectest.Rows{{4, 2, "yy"}, {9, 3, "zzz"}, {10, 5, ""}, {-3, -1, "x"}}),
		// The two comparisons cannot fail, so they run together on the same rows (one
		// take); the division still only sees the rows they kept.
		filterCase("safe-conjuncts-then-guarded-division", call("and", bln,
			call("and", bln, call("gte", bln, col(0, i64), lit(int64(1))), call("not_equal", bln, col(1, i64), lit(int64(0)))),
			call("gt", bln, call("divide", i64, col(0, i64), col(1, i64)), lit(int64(1)))),
			exectest.Rows{{4, 2, "yy"}, {9, 3, "zzz"}, {10, 5, ""}}),
		filterCase("column-and-string-comparisons", call("and", bln,
			call("lt", bln, col(1, i64), col(0, i64)), call("not_equal", bln, col(2, str), lit("x"))),
			exectest.Rows{{4, 2, "yy"}, {9, 3, "zzz"}, {10, 5, ""}}),
		filterCase("or-kleene", call("or", bln,
			call("lt", bln, col(0, i64), lit(int64(0))),
			call("is_null", bln, col(1, i64))),
			exectest.Rows{{5, nil, "x"}, {-3, -1, "x"}}),
		filterCase("like", call("like", bln, col(2, str), lit("z%")), exectest.Rows{{9, 3, "zzz"}}),
		filterCase("none", call("gt", bln, col(0, i64), lit(int64(100))), nil),
		{
			Name: "division-by-zero", Schema: abSchema, Input: abRows,
			Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
				return ops.NewFilter(in, call("gt", bln, call("divide", i64, col(0, i64), col(1, i64)), lit(int64(1))), env), nil
			},
			WantErr: func(t *testing.T, err error) {
				k, ok := dberr.KindOf(err)
				require.True(t, ok)
				require.Equal(t, dberr.InvalidInput, k)
				require.Contains(t, err.Error(), "Division by zero")
			},
		},
	}
	for _, c := range cases {
		exectest.Run(t, c)
	}
}

// Filtering must carry every column type through, booleans included (arrow-go v18.8.0's
// boolean filter kernel returns wrong values; the filter takes rows instead).
func TestFilterCarriesAllTypes(t *testing.T) {
	sch := schema(field("k", i64), field("p", bln), field("d", dt32), field("f", f64), field("s", str))
	in := exectest.Rows{
		{1, true, 10, 1.5, "a"}, {2, false, nil, nil, nil}, {3, nil, 30, -2.0, "c"},
		{4, true, 40, 4.0, "d"}, {5, false, 50, 5.5, "e"},
	}
	exectest.Run(t, exectest.Case{
		Name: "keep-2-of-5", Schema: sch, Input: in, Ordered: true,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewFilter(in, call("equal", bln, call("modulus", i64, col(0, i64), lit(int64(2))), lit(int64(0))), env), nil
		},
		Expected: exectest.Rows{{2, false, nil, nil, nil}, {4, true, arrow.Date32(40), 4.0, "d"}},
	})
}

func TestProject(t *testing.T) {
	outSchema := schema(field("a1", i64), field("half", f64), field("c", str), field("k", i64))
	exprs := []plan.Expr{
		call("add", i64, col(0, i64), lit(int64(1))),
		call("divide", f64, &plan.Cast{Input: col(0, i64), DataType: f64}, lit(2.0)),
		call("coalesce", str, col(2, str), lit("none")),
		call("case", i64,
			call("equal", bln, col(1, i64), lit(int64(0))), lit(int64(-1)),
			call("divide", i64, col(0, i64), col(1, i64))),
	}
	exectest.Run(t, exectest.Case{
		Name: "exprs", Schema: abSchema, Input: abRows, Ordered: true,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewProject(in, exprs, outSchema, env), nil
		},
		Expected: exectest.Rows{
			{2, 0.5, "x", -1},
			{5, 2.0, "yy", 2},
			{nil, nil, "none", -1},
			{6, 2.5, "x", nil},
			{10, 4.5, "zzz", 3},
			{11, 5.0, "", 2},
			{-2, -1.5, "x", 3},
		},
	})
}

func TestLimit(t *testing.T) {
	mk := func(offset, count int64) func(exec.Operator, exec.Env) (exec.Operator, error) {
		return func(in exec.Operator, _ exec.Env) (exec.Operator, error) { return ops.NewLimit(in, offset, count), nil }
	}
	cases := []struct {
		name          string
		offset, count int64
		want          exectest.Rows
	}{
		{"limit-2", 0, 2, abRows[:2]},
		{"offset-2-limit-3", 2, 3, abRows[2:5]},
		{"offset-only", 5, -1, abRows[5:]},
		{"limit-0", 0, 0, nil},
		{"offset-past-end", 10, 5, nil},
		{"no-limit", 0, -1, abRows},
	}
	for _, c := range cases {
		exectest.Run(t, exectest.Case{Name: c.name, Schema: abSchema, Input: abRows, Ordered: true,
			Make: mk(c.offset, c.count), Expected: c.want})
	}
}

func TestSort(t *testing.T) {
	in := exectest.Rows{{3, "c"}, {nil, "n1"}, {1, "a"}, {3, "b"}, {nil, "n2"}, {2, "a"}, {-7, "z"}}
	sch := schema(field("k", i64), field("s", str))
	mk := func(keys ...plan.SortKey) func(exec.Operator, exec.Env) (exec.Operator, error) {
		return func(in exec.Operator, env exec.Env) (exec.Operator, error) { return ops.NewSort(in, keys, env), nil }
	}
	k := plan.SortKey{Expr: col(0, i64)}
	cases := []struct {
		name string
		keys []plan.SortKey
		want exectest.Rows
	}{
		{"asc-nulls-last", []plan.SortKey{k},
			exectest.Rows{{-7, "z"}, {1, "a"}, {2, "a"}, {3, "c"}, {3, "b"}, {nil, "n1"}, {nil, "n2"}}},
		{"desc-nulls-first", []plan.SortKey{{Expr: col(0, i64), Descending: true, NullsFirst: true}},
			exectest.Rows{{nil, "n1"}, {nil, "n2"}, {3, "c"}, {3, "b"}, {2, "a"}, {1, "a"}, {-7, "z"}}},
		{"two-keys", []plan.SortKey{k, {Expr: col(1, str)}},
			exectest.Rows{{-7, "z"}, {1, "a"}, {2, "a"}, {3, "b"}, {3, "c"}, {nil, "n1"}, {nil, "n2"}}},
		{"string-then-int-desc", []plan.SortKey{{Expr: col(1, str)}, {Expr: col(0, i64), Descending: true}},
			exectest.Rows{{2, "a"}, {1, "a"}, {3, "b"}, {3, "c"}, {nil, "n1"}, {nil, "n2"}, {-7, "z"}}},
		{"expression-key", []plan.SortKey{{Expr: call("negate", i64, col(0, i64))}},
			exectest.Rows{{3, "c"}, {3, "b"}, {2, "a"}, {1, "a"}, {-7, "z"}, {nil, "n1"}, {nil, "n2"}}},
	}
	for _, c := range cases {
		exectest.Run(t, exectest.Case{Name: c.name, Schema: sch, Input: in, Ordered: true, Make: mk(c.keys...), Expected: c.want})
	}
	exectest.Run(t, exectest.Case{Name: "empty", Schema: sch, Ordered: true, Make: mk(k)})

	// NaN sorts above +Inf, NULLs apart (DuckDB: ORDER BY x gives 1.0, inf, nan, NULL).
	fsch := schema(field("x", f64))
	fin := exectest.Rows{{math.NaN()}, {1.0}, {nil}, {math.Inf(1)}, {-1.0}, {math.Inf(-1)}}
	fk := plan.SortKey{Expr: col(0, f64)}
	exectest.Run(t, exectest.Case{Name: "float-asc", Schema: fsch, Input: fin, Ordered: true, Make: mk(fk),
		Expected: exectest.Rows{{math.Inf(-1)}, {-1.0}, {1.0}, {math.Inf(1)}, {math.NaN()}, {nil}}})
	fk.Descending = true
	exectest.Run(t, exectest.Case{Name: "float-desc", Schema: fsch, Input: fin, Ordered: true, Make: mk(fk),
		Expected: exectest.Rows{{math.NaN()}, {math.Inf(1)}, {1.0}, {-1.0}, {math.Inf(-1)}, {nil}}})
}
