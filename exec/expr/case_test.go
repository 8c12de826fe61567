package expr_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/planner/plan"
)

// randomRows returns n rows of inSchema with about one NULL in four per column.
func randomRows(r *rand.Rand, n int) exectest.Rows {
	maybe := func(v any) any {
		if r.IntN(4) == 0 {
			return nil
		}
		return v
	}
	words := []string{"PROMO BRUSHED", "STANDARD TIN", "PROMO", "", "ECONOMY PROMO", "promo x"}
	rows := make(exectest.Rows, n)
	for i := range rows {
		rows[i] = []any{maybe(r.Int64N(21) - 10), maybe(r.Int64N(21) - 10), maybe(float64(r.IntN(100)) / 4),
			maybe(words[r.IntN(len(words))]), maybe(r.IntN(2) == 0), maybe(r.IntN(2) == 0), maybe(r.IntN(1000))}
	}
	return rows
}

func isTrue(v any) bool   { b, ok := v.(bool); return ok && b }
func positive(v any) bool { x, ok := v.(int64); return ok && x > 0 }
func hasPromo(v any) bool { s, ok := v.(string); return ok && strings.HasPrefix(s, "PROMO") }
func pick(c bool, a, b any) any {
	if c {
		return a
	}
	return b
}

// TestCaseSplitsOnlyNeededColumns checks CASE, whose branch splits gather only the columns
// the receiving expressions read, against a row-by-row reference on random data with NULLs
// over several batch sizes and layouts (the unread columns, strings among them, are the ones
// the split replaces by prefixes).
func TestCaseSplitsOnlyNeededColumns(t *testing.T) {
	cases := []struct {
		name string
		e    plan.Expr
		ref  func(row []any) any
	}{
		{"q14-shape", fn("case", f64, fn("like", bln, col(3), lit("PROMO%")), col(2), lit(0.0)),
			func(r []any) any { return pick(hasPromo(r[3]), r[2], 0.0) }},
		{"string-then-skips-ints", fn("case", str, fn("gt", bln, col(0), lit(int64(0))), col(3), col(4), lit("p"), null(str)),
			func(r []any) any { return pick(positive(r[0]), r[3], pick(isTrue(r[4]), "p", nil)) }},
		{"later-cond-reads-other-column", fn("case", i64, col(4), col(0), fn("gt", bln, col(1), lit(int64(0))), col(1), col(0)),
			func(r []any) any { return pick(isTrue(r[4]), r[0], pick(positive(r[1]), r[1], r[0])) }},
		{"nested-case", fn("case", i64, col(4), fn("case", i64, col(5), col(1), col(0)), lit(int64(-1))),
			func(r []any) any { return pick(isTrue(r[4]), pick(isTrue(r[5]), r[1], r[0]), int64(-1)) }},
		{"is-null-guard", fn("case", i64, fn("is_null", bln, col(0)), col(1), fn("add", i64, col(0), lit(int64(1)))),
			func(r []any) any {
				if r[0] == nil {
					return r[1]
				}
				return r[0].(int64) + 1
			}},
	}
	r := rand.New(rand.NewPCG(7, 14))
	for _, n := range []int{1, 7, 100, 1000} {
		rows := randomRows(r, n)
		for _, c := range cases {
			for _, layout := range []exectest.Layout{exectest.Plain, exectest.Hostile} {
				t.Run(fmt.Sprintf("%s/n=%d/layout=%d", c.name, n, layout), func(t *testing.T) {
					want := make([]any, n)
					for i, row := range rows {
						want[i] = c.ref(row)
					}
					got := evalRows(t, c.e, rows, layout)
					exectest.RequireRows(t, exectest.Rows{want}, exectest.Rows{got}, true)
				})
			}
		}
	}
}

// evalRows evaluates e over rows (one batch) and returns its values.
func evalRows(t *testing.T, e plan.Expr, rows exectest.Rows, layout exectest.Layout) []any {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bs, err := exectest.MakeBatches(mem, inSchema, rows, 0, layout)
	require.NoError(t, err)
	require.Len(t, bs, 1)
	defer bs[0].Release()
	ev, err := expr.Compile(e, mem)
	require.NoError(t, err)
	out, err := ev.Eval(context.Background(), bs[0])
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, len(rows), out.Len())
	return columnValues(out)
}
