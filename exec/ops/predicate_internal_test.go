package ops

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// TestPredicateSteps checks which conjuncts share a step (evaluated on the same rows, one
// take): consecutive comparisons that cannot fail; anything else starts a step of its own.
func TestPredicateSteps(t *testing.T) {
	i64, f64, str := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String
	bln := arrow.FixedWidthTypes.Boolean
	col := func(i int, dt arrow.DataType) plan.Expr { return &plan.ColumnRef{Index: i, DataType: dt} }
	lit := func(v int64) plan.Expr { return &plan.Literal{Value: scalar.NewInt64Scalar(v)} }
	cmp := func(fn string, a, b plan.Expr) plan.Expr {
		return &plan.Call{Func: fn, Args: []plan.Expr{a, b}, DataType: bln}
	}
	and := func(args ...plan.Expr) plan.Expr { return &plan.Call{Func: "and", Args: args, DataType: bln} }
	div := &plan.Call{Func: "divide", Args: []plan.Expr{col(0, i64), col(1, i64)}, DataType: i64}
	floatOf := func(e plan.Expr) plan.Expr { return &plan.Cast{Input: e, DataType: f64} }
	fl := &plan.Literal{Value: scalar.NewFloat64Scalar(0.5)}
	cases := []struct {
		name  string
		cond  plan.Expr
		steps []int // conjuncts per step
	}{
		{"one", cmp("gt", col(0, i64), lit(1)), []int{1}},
		{"safe-run", and(cmp("gt", col(0, i64), lit(1)), cmp("lt", col(1, i64), col(0, i64)), cmp("gte", floatOf(col(1, i64)), fl)), []int{3}},
		{"division-splits", and(cmp("not_equal", col(1, i64), lit(0)), cmp("gt", div, lit(1)), cmp("lt", col(0, i64), lit(9))), []int{1, 1, 1}},
		{"string-to-float-cast-can-fail", and(cmp("gt", col(0, i64), lit(1)), cmp("gt", floatOf(col(2, str)), fl)), []int{1, 1}},
		{"try-cast-is-not-grouped", and(cmp("gt", col(0, i64), lit(1)), cmp("gt", &plan.Cast{Input: col(0, i64), DataType: f64, Try: true}, fl)), []int{1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := newPredicate(c.cond, memory.NewGoAllocator())
			require.NoError(t, err)
			got := make([]int, len(p.steps))
			for i, s := range p.steps {
				got[i] = len(s)
			}
			require.Equal(t, c.steps, got)
		})
	}
}

// TestMergeRanges: fast comparisons of one column become one range test (a <> stays
// apart); other columns and evaluated conjuncts keep their places; the merged conjunct's
// evaluator is the AND of both.
func TestMergeRanges(t *testing.T) {
	i64, bln := arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Boolean
	col := func(i int) plan.Expr { return &plan.ColumnRef{Index: i, DataType: i64} }
	lit := func(v int64) plan.Expr { return &plan.Literal{Value: scalar.NewInt64Scalar(v)} }
	cmp := func(fn string, a, b plan.Expr) plan.Expr {
		return &plan.Call{Func: fn, Args: []plan.Expr{a, b}, DataType: bln}
	}
	cases := []struct {
		name  string
		conds []plan.Expr
		want  []string // the conjuncts' conditions after merging
	}{
		{"two-ends", []plan.Expr{cmp("gte", col(0), lit(1)), cmp("lt", col(0), lit(5))},
			[]string{"and(gte(#0, 1), lt(#0, 5))"}},
		{"other-column-between", []plan.Expr{cmp("gte", col(0), lit(1)), cmp("lt", col(1), lit(5)), cmp("lt", col(0), lit(9))},
			[]string{"and(gte(#0, 1), lt(#0, 9))", "lt(#1, 5)"}},
		{"not-equal-apart", []plan.Expr{cmp("not_equal", col(0), lit(1)), cmp("lt", col(0), lit(5))},
			[]string{"not_equal(#0, 1)", "lt(#0, 5)"}},
		{"column-to-column", []plan.Expr{cmp("lt", col(0), col(1)), cmp("lt", col(0), lit(5))},
			[]string{"lt(#0, #1)", "lt(#0, 5)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var cs []preConjunct
			for _, e := range c.conds {
				pc, err := compileConjunct(e, memory.NewGoAllocator())
				require.NoError(t, err)
				cs = append(cs, pc)
			}
			got, err := mergeRanges(cs, memory.NewGoAllocator())
			require.NoError(t, err)
			var names []string
			for _, g := range got {
				names = append(names, g.cond.String())
			}
			require.Equal(t, c.want, names)
		})
	}
}
