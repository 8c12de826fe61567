package expr_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/planner/plan"
)

// TestCompareStringConst checks comparisons of a string column with a string literal (the
// constant fast path), either way round, on string and large_string, against a row-by-row
// reference on random data with NULLs over several batch sizes and layouts.
func TestCompareStringConst(t *testing.T) {
	ops := []struct {
		name string
		test func(c int) bool // on strings.Compare(value, constant)
	}{
		{"equal", func(c int) bool { return c == 0 }}, {"not_equal", func(c int) bool { return c != 0 }},
		{"lt", func(c int) bool { return c < 0 }}, {"lte", func(c int) bool { return c <= 0 }},
		{"gt", func(c int) bool { return c > 0 }}, {"gte", func(c int) bool { return c >= 0 }},
	}
	large := arrow.BinaryTypes.LargeString
	types := []struct {
		name string
		arg  plan.Expr
		lit  func(string) plan.Expr
	}{
		{"string", col(3), func(s string) plan.Expr { return lit(s) }},
		{"large_string", &plan.Cast{Input: col(3), DataType: large},
			func(s string) plan.Expr { return &plan.Literal{Value: scalar.NewLargeStringScalar(s)} }},
	}
	r := rand.New(rand.NewPCG(3, 9))
	for _, n := range []int{1, 9, 300} {
		rows := randomRows(r, n)
		for _, op := range ops {
			for _, ty := range types {
				for _, c := range []string{"PROMO", "", "STANDARD TIN", "zz"} {
					for _, flip := range []bool{false, true} {
						e := fn(op.name, bln, ty.arg, ty.lit(c))
						if flip {
							e = fn(op.name, bln, ty.lit(c), ty.arg)
						}
						for _, layout := range []exectest.Layout{exectest.Plain, exectest.Hostile} {
							t.Run(fmt.Sprintf("%s/%s/%q/flip=%v/n=%d/layout=%d", op.name, ty.name, c, flip, n, layout), func(t *testing.T) {
								want := make([]any, n)
								for i, row := range rows {
									if s, ok := row[3].(string); ok {
										x, y := s, c
										if flip {
											x, y = c, s
										}
										want[i] = op.test(strings.Compare(x, y))
									}
								}
								got := evalRows(t, e, rows, layout)
								exectest.RequireRows(t, exectest.Rows{want}, exectest.Rows{got}, true)
							})
						}
					}
				}
			}
		}
	}
}
